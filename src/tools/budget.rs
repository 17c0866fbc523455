//! A byte budget for copies of caller data that the caller's input does not bound by itself:
//! `$ref` expansion (one value copied once per ref) and the tool registry (kept for the life of
//! the process).

use crate::json::Value;

/// What a value counts for besides its text: about the memory a small value takes.
const VALUE_COST: usize = 16;

/// Bytes left to spend. A value costs the bytes of its strings and keys plus 16 per value (its
/// array elements and object members included).
#[derive(Debug)]
pub(crate) struct Budget {
    left: usize,
}

impl Budget {
    pub(crate) fn new(bytes: usize) -> Self {
        Budget { left: bytes }
    }

    /// Takes the cost of `value`; false (and nothing left) when it does not fit. It stops as
    /// soon as the budget runs out, so a check never walks more than the budget.
    pub(crate) fn spend(&mut self, value: &Value) -> bool {
        let text = match value {
            Value::String(s) => s.len(),
            _ => 0,
        };
        if !self.take(VALUE_COST.saturating_add(text)) {
            return false;
        }
        match value {
            Value::Array(items) => items.iter().all(|item| self.spend(item)),
            Value::Object(map) => map.iter().all(|(key, item)| self.take(key.len()) && self.spend(item)),
            _ => true,
        }
    }

    /// Takes `bytes`; false (and nothing left) when there are fewer.
    pub(crate) fn take(&mut self, bytes: usize) -> bool {
        match self.left.checked_sub(bytes) {
            Some(left) => {
                self.left = left;
                true
            }
            None => {
                self.left = 0;
                false
            }
        }
    }

    pub(crate) fn left(&self) -> usize {
        self.left
    }
}

#[cfg(test)]
mod tests {
    use super::Budget;
    use serde_json::json;

    #[test]
    fn a_value_costs_its_strings_and_keys_and_sixteen_bytes_a_value() {
        let cases = [
            (json!(null), 16),
            (json!(12.5), 16),
            (json!(""), 16),
            (json!("abc"), 19),
            (json!([]), 16),
            (json!([1, "é"]), 16 + 16 + 18),
            (json!({"ab": {"c": "xyz"}}), 16 + 2 + 16 + 1 + 19),
        ];
        for (value, cost) in cases {
            let value = value.into();
            let mut budget = Budget::new(1000);
            assert!(budget.spend(&value), "{value:?}");
            assert_eq!(1000 - budget.left(), cost, "{value:?}");
            let mut exact = Budget::new(cost);
            assert!(exact.spend(&value) && exact.left() == 0, "{value:?}");
            let mut short = Budget::new(cost - 1);
            assert!(!short.spend(&value) && short.left() == 0, "{value:?}");
        }
    }

    #[test]
    fn one_budget_is_spent_value_after_value_until_one_does_not_fit() {
        let text: crate::json::Value = json!("x".repeat(100)).into();
        let mut budget = Budget::new(300);
        assert!(budget.spend(&text) && budget.spend(&text));
        assert_eq!(budget.left(), 300 - 2 * 116);
        assert!(!budget.spend(&text));
        assert_eq!(budget.left(), 0);
        assert!(budget.take(0) && !budget.take(1));
    }
}
