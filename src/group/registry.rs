//! A group's registry: the tasks not yet joined, each entry at a place of
//! its own (the entry's `key`, reused once it is free), with the caller's
//! key beside it (called its *label* here, not to mix the two up: `()`
//! unless the group is keyed). The group cancels through it (`abort_all`
//! sweeps what it holds), counts by it (`len`), and takes a completion's
//! label out of it.

use ::std::sync::Arc;
use ::std::vec::Vec;

use super::shared::Entry;

/// The tasks of a group not yet joined, by their entries' keys (their
/// places here), each with its label `K` (the caller's key).
pub(super) struct Registry<T, K> {
    entries: Vec<Option<(Arc<Entry<T>>, K)>>,
    free: Vec<usize>,
    pub(super) len: usize,
}

impl<T, K> Registry<T, K> {
    pub(super) fn new() -> Self {
        Registry {
            entries: Vec::new(),
            free: Vec::new(),
            len: 0,
        }
    }

    /// A key for an entry about to be made.
    pub(super) fn reserve(&mut self) -> usize {
        self.free.pop().unwrap_or_else(|| {
            self.entries.push(None);
            self.entries.len() - 1
        })
    }

    /// A reserved key whose entry never joined.
    pub(super) fn release(&mut self, key: usize) {
        self.free.push(key);
    }

    pub(super) fn insert(&mut self, entry: Arc<Entry<T>>, label: K) {
        let key = entry.key;
        self.entries[key] = Some((entry, label));
        self.len += 1;
    }

    /// Takes the entry at `key` out, and hands back its label.
    pub(super) fn remove(&mut self, key: usize) -> Option<K> {
        let (_, label) = self.entries[key].take()?;
        self.len -= 1;
        self.free.push(key);
        Some(label)
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &Arc<Entry<T>>> {
        self.entries.iter().flatten().map(|(entry, _)| entry)
    }
}

#[cfg(all(test, not(antpool_loom)))]
mod tests {
    use super::Registry;

    /// A key reserved for a task that never joined (its spawn failed) is
    /// handed out again: a group whose spawns keep failing does not grow.
    #[test]
    fn a_released_key_is_handed_out_again() {
        let mut registry = Registry::<u32, ()>::new();
        let first = registry.reserve();
        for _ in 0..3 {
            registry.release(first);
            assert_eq!(registry.reserve(), first);
        }
        assert_ne!(registry.reserve(), first, "a key in use is not");
    }
}
