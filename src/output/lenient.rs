//! Repairs for the usual damage of model output around one JSON object: a fenced code block,
//! prose before and after the object, trailing commas. Each repair is tried only when the text
//! does not parse; a repair that does not yield exactly one object is an error, never `{}`.

use crate::json::value::parse_value_as_js;
use crate::json::Value;

/// The one object in damaged model output, or why there is none. Numbers are read as
/// `JSON.parse` reads them (see [`super::parse_structured_output`]).
pub(crate) fn repair(text: &str) -> Result<Value, String> {
    let inner = fenced(text).unwrap_or(text);
    let candidate = match objects(inner) {
        (0, _) => return Err("no balanced JSON object in the text".into()),
        (1, one) => one,
        (many, _) => return Err(format!("{many} JSON objects in the text; expected one")),
    };
    match parse_value_as_js(candidate) {
        Ok(value) => Ok(value),
        Err(_) => parse_value_as_js(&without_trailing_commas(candidate)).map_err(|e| e.message()),
    }
}

/// The body of the first fenced block (```` ```json ```` or a bare ```` ``` ````).
fn fenced(text: &str) -> Option<&str> {
    let after = &text[text.find("```")? + 3..];
    // The info string (`json`, `JSON`, nothing) runs to the end of the fence line.
    let body = &after[after.find('\n').map_or(after.len(), |n| n + 1)..];
    Some(&body[..body.find("```").unwrap_or(body.len())])
}

/// How many top-level balanced `{…}` the text holds (braces inside strings do not count), and
/// the first one.
fn objects(text: &str) -> (usize, &str) {
    let bytes = text.as_bytes();
    let mut found = (0, "");
    let (mut depth, mut start) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            // Quotes only open strings inside an object: prose apostrophes and quotes do not.
            b'"' if depth > 0 => in_string = true,
            b'{' => {
                if depth == 0 {
                    start = i;
                }
                depth += 1;
            }
            b'}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    if found.0 == 0 {
                        found.1 = &text[start..=i];
                    }
                    found.0 += 1;
                }
            }
            _ => {}
        }
    }
    found
}

/// The text with every comma that directly precedes `}` or `]` (across whitespace) removed,
/// outside strings. Walked by bytes: the bytes that matter are ASCII, and no byte of a
/// multi-byte character is one of them.
fn without_trailing_commas(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    let mut from = 0;
    for (i, &b) in text.as_bytes().iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if b == b',' {
            let next = text[i + 1..].trim_start().as_bytes().first();
            if matches!(next, Some(b'}' | b']')) {
                out.push_str(&text[from..i]);
                from = i + 1;
            }
        }
    }
    out.push_str(&text[from..]);
    out
}

#[cfg(test)]
mod tests {
    use super::{fenced, without_trailing_commas};

    #[test]
    fn fenced_is_the_body_of_the_first_fence_to_the_next_one_or_the_end() {
        let cases = [
            ("", None),
            ("``", None),
            ("```", Some("")),
            ("```json\n{}\n```", Some("{}\n")),
            // No line after the info string: an empty body.
            ("```json{}```", Some("")),
            ("```json\n{\"a\":1}", Some("{\"a\":1}")),
            ("prose ```JSON\n{}\n``` more ```x```", Some("{}\n")),
            ("a```é\n日本```b```", Some("日本")),
        ];
        for (text, body) in cases {
            assert_eq!(fenced(text), body, "{text:?}");
        }
    }

    #[test]
    fn without_trailing_commas_is_the_char_walk_it_replaces() {
        fn reference(text: &str) -> String {
            let mut out = String::with_capacity(text.len());
            let (mut in_string, mut escaped) = (false, false);
            for (i, c) in text.char_indices() {
                if in_string {
                    match (escaped, c) {
                        (true, _) => escaped = false,
                        (false, '\\') => escaped = true,
                        (false, '"') => in_string = false,
                        _ => {}
                    }
                } else if c == '"' {
                    in_string = true;
                } else if c == ',' {
                    let next = text[i + 1..].chars().find(|c| !c.is_whitespace());
                    if matches!(next, Some('}') | Some(']')) {
                        continue;
                    }
                }
                out.push(c);
            }
            out
        }
        let texts = [
            "",
            ",",
            ",}",
            "{\"a\": 1,}",
            "{\"a\": [1, 2,\u{a0}\u{2028} ],\n}",
            "{\"a,}\": \"b,]\",}",
            "{\"\\\",}\": 1 , }",
            "{\"é\\日\": \"\\é,}\",}",
            "日本,},é,],\u{3000}]",
            "{\"a\": 1,,}",
            "\"unterminated ,}",
        ];
        for text in texts {
            assert_eq!(without_trailing_commas(text), reference(text), "{text:?}");
        }
    }
}
