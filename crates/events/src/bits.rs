//! A set of small indices (event indices, positions, hashed keys) as one
//! bit each: the look-up the loops over every event or node make before a
//! slower one, where most answers are no.

/// A set of indices, one bit each, growing to the largest inserted.
#[derive(Debug, Clone, Default)]
pub struct Bits {
    words: Vec<u64>,
}

impl Bits {
    /// An empty set with room for the indices below `len`.
    pub fn with_len(len: usize) -> Bits {
        Bits {
            words: vec![0; len.div_ceil(64)],
        }
    }

    /// Adds `i`.
    pub fn insert(&mut self, i: usize) {
        let word = i / 64;
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        self.words[word] |= 1 << (i % 64);
    }

    /// Whether `i` was added.
    pub fn contains(&self, i: usize) -> bool {
        self.words.get(i / 64).is_some_and(|word| word & (1 << (i % 64)) != 0)
    }
}

impl FromIterator<usize> for Bits {
    fn from_iter<I: IntoIterator<Item = usize>>(indices: I) -> Bits {
        let mut bits = Bits::default();
        for i in indices {
            bits.insert(i);
        }
        bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_what_was_inserted_and_nothing_else() {
        let bits: Bits = [0, 63, 64, 200].into_iter().collect();
        let held: Vec<usize> = (0..300).filter(|&i| bits.contains(i)).collect();
        assert_eq!(held, [0, 63, 64, 200]);
        assert!(!Bits::with_len(10).contains(5) && !Bits::default().contains(1 << 40));
    }
}
