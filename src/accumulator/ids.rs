//! [`IdMap`]: the positions of the ids a stream gives (tool-call ids, item ids), found by a hash
//! of the id before its bytes are compared.

use std::collections::btree_map::{BTreeMap, Entry};

/// Ids and the position each names, in a B-tree ordered by a 64-bit hash of the id.
///
/// A B-tree of strings compares the id with a key at every step of a search, and the ids of one
/// stream share long prefixes (`call_`, `fc_`, `msg_`): with 100,000 chat tool calls, those
/// comparisons were a sixth of a push (bench/FINDINGS.md, "Many items in one stream"; paired in
/// wasm, 0.94 of the time here). Here a search reads the id once, to hash it, and then compares
/// integers. Ids whose hashes agree share a B-tree of strings of their own, so ids made to
/// collide cost what a B-tree of strings costs, never a scan: the cost of a search grows with
/// the logarithm of the number of ids, whatever they are.
#[derive(Debug, Default)]
pub(crate) struct IdMap {
    by_hash: BTreeMap<u64, Slot>,
}

/// The ids of one hash: almost always one.
#[derive(Debug)]
enum Slot {
    One(String, usize),
    Many(BTreeMap<String, usize>),
}

impl IdMap {
    /// The position `id` names.
    pub(crate) fn get(&self, id: &str) -> Option<usize> {
        self.get_hashed(hash(id), id)
    }

    pub(crate) fn contains(&self, id: &str) -> bool {
        self.get(id).is_some()
    }

    /// Makes `id` name `at`, in place of what it named before.
    pub(crate) fn insert(&mut self, id: &str, at: usize) {
        self.place(hash(id), id, at, true);
    }

    /// The position `id` names; when it names none yet, `at`, which it names from then on.
    pub(crate) fn get_or_insert(&mut self, id: &str, at: usize) -> usize {
        self.place(hash(id), id, at, false)
    }

    fn get_hashed(&self, h: u64, id: &str) -> Option<usize> {
        match self.by_hash.get(&h)? {
            Slot::One(known, at) => (known == id).then_some(*at),
            Slot::Many(ids) => ids.get(id).copied(),
        }
    }

    /// Places `id`, of hash `h`, at `at` when it is new or when `replace`; what it names after.
    fn place(&mut self, h: u64, id: &str, at: usize, replace: bool) -> usize {
        let slot = match self.by_hash.entry(h) {
            Entry::Vacant(place) => {
                place.insert(Slot::One(id.to_owned(), at));
                return at;
            }
            Entry::Occupied(slot) => slot.into_mut(),
        };
        match slot {
            Slot::One(known, kept) if known == id => {
                if replace {
                    *kept = at;
                }
                *kept
            }
            Slot::One(known, kept) => {
                let first = (std::mem::take(known), *kept);
                *slot = Slot::Many(BTreeMap::from([first, (id.to_owned(), at)]));
                at
            }
            Slot::Many(ids) => match ids.entry(id.to_owned()) {
                Entry::Vacant(place) => *place.insert(at),
                Entry::Occupied(mut kept) => {
                    if replace {
                        kept.insert(at);
                    }
                    *kept.get()
                }
            },
        }
    }
}

/// FNV-1a over the id's bytes.
fn hash(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_name_their_latest_position() {
        let mut ids = IdMap::default();
        assert_eq!(ids.get("call_1"), None);
        ids.insert("call_1", 0);
        ids.insert("call_2", 1);
        ids.insert("", 2);
        assert_eq!((ids.get("call_1"), ids.get("call_2"), ids.get("")), (Some(0), Some(1), Some(2)));
        ids.insert("call_1", 3);
        assert_eq!(ids.get("call_1"), Some(3));
        assert_eq!(ids.get_or_insert("call_1", 9), 3, "a known id keeps what it names");
        assert_eq!(ids.get_or_insert("call_3", 9), 9);
        assert!(ids.contains("call_3") && !ids.contains("call_4"));
    }

    /// Ids whose hashes agree (a forged stream could make FNV-1a's agree; here they are given
    /// one hash directly) stay apart, each naming its own position.
    #[test]
    fn ids_that_share_a_hash_stay_apart() {
        let mut ids = IdMap::default();
        let h = 7;
        assert_eq!(ids.place(h, "a", 0, true), 0);
        assert_eq!(ids.place(h, "b", 1, true), 1);
        assert_eq!(ids.place(h, "c", 2, false), 2);
        assert_eq!(
            (ids.get_hashed(h, "a"), ids.get_hashed(h, "b"), ids.get_hashed(h, "c")),
            (Some(0), Some(1), Some(2))
        );
        assert_eq!(ids.get_hashed(h, "d"), None);
        assert_eq!(ids.place(h, "b", 5, false), 1, "a known id keeps what it names");
        assert_eq!(ids.place(h, "b", 5, true), 5);
        assert_eq!(ids.get_hashed(h, "b"), Some(5));
        assert_eq!(ids.get_hashed(h + 1, "a"), None, "an id is found under its own hash only");
    }

    #[test]
    fn many_ids_are_all_found() {
        let mut ids = IdMap::default();
        for i in 0..10_000 {
            ids.insert(&format!("fc_{i}"), i);
        }
        assert!((0..10_000).all(|i| ids.get(&format!("fc_{i}")) == Some(i)));
        assert_eq!(ids.get("fc_10000"), None);
    }
}
