//! [`Map`]: a JSON object's members in a vector kept sorted by key.
//!
//! Iteration is in key order, as serde_json's default `Map` (a `BTreeMap<String, Value>`)
//! iterates, so every JSON text written from one is byte for byte what serde_json writes; a key
//! inserted twice keeps its last value. Lookups are binary searches. A vector rather than a
//! B-tree: the objects of this crate are small, and one read from JSON text is built in one go
//! ([`Map::from_members`], sorted once), not by sorted inserts, so a large unordered object
//! costs `n log n`, not `n²`.

use std::fmt;

use super::tree::Value;

/// A JSON object: string keys, each once, in ascending (byte) order.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Map {
    members: Vec<(String, Value)>,
}

impl Map {
    /// An empty map.
    pub fn new() -> Self {
        Map { members: Vec::new() }
    }

    /// Where `key` is (`Ok`), or where it would go (`Err`). The last member is tried first:
    /// keys often come in order (copies of another map, sorted literals).
    fn find(&self, key: &str) -> Result<usize, usize> {
        match self.members.last() {
            None => Err(0),
            Some((last, _)) if last.as_str() < key => Err(self.members.len()),
            _ => self.members.binary_search_by(|(k, _)| k.as_str().cmp(key)),
        }
    }

    /// The map of `members` in any order, a key given more than once keeping its last value: a
    /// JSON object as read. Sorted (stably) only when not in order already.
    pub(crate) fn from_members(mut members: Vec<(String, Value)>) -> Self {
        if members.windows(2).any(|pair| pair[0].0 >= pair[1].0) {
            members.sort_by(|a, b| a.0.cmp(&b.0));
            // Of a run of equal keys the first stays, holding the run's last value.
            members.dedup_by(|next, kept| {
                let same = next.0 == kept.0;
                if same {
                    std::mem::swap(&mut next.1, &mut kept.1);
                }
                same
            });
        }
        Map { members }
    }

    /// Sets `key` to `value`; the value it had before, if any.
    pub fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        match self.find(&key) {
            Ok(at) => Some(std::mem::replace(&mut self.members[at].1, value)),
            Err(at) => {
                self.members.insert(at, (key, value));
                None
            }
        }
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.find(key).ok().map(|at| &self.members[at].1)
    }

    /// The value of `key`, to change.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.find(key).ok().map(|at| &mut self.members[at].1)
    }

    /// Whether `key` is in the map.
    pub fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_ok()
    }

    /// Takes `key` out; its value, if it was there.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        self.find(key).ok().map(|at| self.members.remove(at).1)
    }

    /// Keeps the members `keep` says yes to.
    pub fn retain(&mut self, mut keep: impl FnMut(&String, &mut Value) -> bool) {
        self.members.retain_mut(|(key, value)| keep(key, value));
    }

    /// Moves every member of `other` into this map (replacing the values of keys in both).
    pub fn append(&mut self, other: &mut Map) {
        self.extend(std::mem::take(&mut other.members));
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether there are no members.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The members in key order.
    pub fn iter(&self) -> Iter<'_> {
        Iter(self.members.iter())
    }

    /// The members in key order, values to change.
    pub fn iter_mut(&mut self) -> IterMut<'_> {
        IterMut(self.members.iter_mut())
    }

    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &String> + ExactSizeIterator {
        self.members.iter().map(|(key, _)| key)
    }

    /// The values in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.members.iter().map(|(_, value)| value)
    }

    /// The values in key order, to change.
    pub fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut Value> + ExactSizeIterator {
        self.members.iter_mut().map(|(_, value)| value)
    }
}

/// What [`Map::iter`] returns: `(&key, &value)` in key order.
pub struct Iter<'a>(std::slice::Iter<'a, (String, Value)>);

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a String, &'a Value);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(key, value)| (key, value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(key, value)| (key, value))
    }
}

impl ExactSizeIterator for Iter<'_> {}

/// What [`Map::iter_mut`] returns: `(&key, &mut value)` in key order.
pub struct IterMut<'a>(std::slice::IterMut<'a, (String, Value)>);

impl<'a> Iterator for IterMut<'a> {
    type Item = (&'a String, &'a mut Value);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(key, value)| (&*key, value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl ExactSizeIterator for IterMut<'_> {}

impl<'a> IntoIterator for &'a Map {
    type Item = (&'a String, &'a Value);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut Map {
    type Item = (&'a String, &'a mut Value);
    type IntoIter = IterMut<'a>;

    fn into_iter(self) -> IterMut<'a> {
        self.iter_mut()
    }
}

/// The members in key order, owned.
impl IntoIterator for Map {
    type Item = (String, Value);
    type IntoIter = std::vec::IntoIter<(String, Value)>;

    fn into_iter(self) -> Self::IntoIter {
        self.members.into_iter()
    }
}

/// A map of the pairs, a key given twice keeping its last value.
impl FromIterator<(String, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(members: I) -> Self {
        Map::from_members(members.into_iter().collect())
    }
}

/// Inserts each pair in turn.
impl Extend<(String, Value)> for Map {
    fn extend<I: IntoIterator<Item = (String, Value)>>(&mut self, members: I) {
        for (key, value) in members {
            self.insert(key, value);
        }
    }
}

/// `map["key"]`: the value; panics when the key is missing (as serde_json's).
impl std::ops::Index<&str> for Map {
    type Output = Value;

    fn index(&self, key: &str) -> &Value {
        self.get(key).expect("no entry found for key")
    }
}

/// As a map: `{"key": value, ...}`.
impl fmt::Debug for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}
