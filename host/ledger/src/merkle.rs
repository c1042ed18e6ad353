//! The Merkle tree of RFC 6962 (Certificate Transparency), also RFC 9162
//! §2.1: SHA-256, leaf hash `H(0x00 || entry)`, interior hash
//! `H(0x01 || left || right)`, the tree over `n` leaves split at the
//! largest power of two below `n`. The same tree every transparency log
//! (Go's `tlog`, Trillian, sigsum, Rekor) builds, so any of their
//! verifiers can check vcc's proofs.
//!
//! [`Frontier`] keeps only the roots of the perfect subtrees a tree of
//! size `n` decomposes into (one per 1-bit of `n`): appending a leaf and
//! computing the root cost O(log n), whatever the size.

use sha2::{Digest, Sha256};

pub type Hash = [u8; 32];

pub fn leaf_hash(entry: &[u8]) -> Hash {
    let mut h = Sha256::new();
    h.update([0u8]);
    h.update(entry);
    h.finalize().into()
}

pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    let mut h = Sha256::new();
    h.update([1u8]);
    h.update(left);
    h.update(right);
    h.finalize().into()
}

/// The root of the empty tree: the hash of nothing.
pub fn empty_root() -> Hash {
    Sha256::digest([]).into()
}

/// The right edge of a tree: the roots of its perfect subtrees, largest
/// (leftmost) first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frontier {
    size: u64,
    /// (height, hash), heights strictly decreasing.
    nodes: Vec<(u32, Hash)>,
}

impl Frontier {
    pub fn size(&self) -> u64 {
        self.size
    }

    pub fn push(&mut self, leaf: Hash) {
        let mut node = (0u32, leaf);
        while let Some(&(height, left)) = self.nodes.last() {
            if height != node.0 {
                break;
            }
            self.nodes.pop();
            node = (height + 1, node_hash(&left, &node.1));
        }
        self.nodes.push(node);
        self.size += 1;
    }

    /// The tree's root (RFC 6962 MTH): the subtrees folded right to left.
    pub fn root(&self) -> Hash {
        let mut nodes = self.nodes.iter().rev();
        let Some(&(_, mut acc)) = nodes.next() else {
            return empty_root();
        };
        for (_, left) in nodes {
            acc = node_hash(left, &acc);
        }
        acc
    }

    /// The subtree hashes, for keeping the state between appends.
    pub fn hashes(&self) -> Vec<Hash> {
        self.nodes.iter().map(|(_, h)| *h).collect()
    }

    /// A frontier from its size and the hashes [`Frontier::hashes`] gave;
    /// `None` when they cannot belong together.
    pub fn restore(size: u64, hashes: &[Hash]) -> Option<Frontier> {
        let heights: Vec<u32> = (0..64).rev().filter(|b| size >> b & 1 == 1).collect();
        (heights.len() == hashes.len()).then(|| Frontier {
            size,
            nodes: heights.into_iter().zip(hashes.iter().copied()).collect(),
        })
    }
}

/// The root of the tree over `leaves` (leaf hashes).
pub fn root(leaves: &[Hash]) -> Hash {
    let mut f = Frontier::default();
    for l in leaves {
        f.push(*l);
    }
    f.root()
}

/// The audit path of leaf `index` in the tree over `leaves` (RFC 6962
/// §2.1.1 PATH(m, D[n])), nearest sibling first.
pub fn inclusion_proof(leaves: &[Hash], index: usize) -> Option<Vec<Hash>> {
    if index >= leaves.len() {
        return None;
    }
    let mut path = Vec::new();
    path_of(leaves, index, &mut path);
    Some(path)
}

fn path_of(leaves: &[Hash], m: usize, out: &mut Vec<Hash>) {
    let n = leaves.len();
    if n <= 1 {
        return;
    }
    let k = split(n);
    if m < k {
        path_of(&leaves[..k], m, out);
        out.push(root(&leaves[k..]));
    } else {
        path_of(&leaves[k..], m - k, out);
        out.push(root(&leaves[..k]));
    }
}

/// The largest power of two smaller than `n` (n > 1).
fn split(n: usize) -> usize {
    let mut k = 1;
    while k << 1 < n {
        k <<= 1;
    }
    k
}

/// Whether `path` proves that `leaf` is leaf `index` of the tree of
/// `size` leaves whose root is `root` (RFC 9162 §2.1.3.2).
pub fn verify_inclusion(leaf: &Hash, index: u64, size: u64, path: &[Hash], root: &Hash) -> bool {
    if index >= size {
        return false;
    }
    let (mut f_n, mut s_n) = (index, size - 1);
    let mut r = *leaf;
    for p in path {
        if s_n == 0 {
            return false;
        }
        if f_n & 1 == 1 || f_n == s_n {
            r = node_hash(p, &r);
            if f_n & 1 == 0 {
                while f_n & 1 == 0 && f_n != 0 {
                    f_n >>= 1;
                    s_n >>= 1;
                }
            }
        } else {
            r = node_hash(&r, p);
        }
        f_n >>= 1;
        s_n >>= 1;
    }
    s_n == 0 && &r == root
}

/// A proof that the tree over `leaves[..m]` is a prefix of the tree over
/// all of `leaves` (RFC 6962 §2.1.2 PROOF(m, D[n])), `None` when `m` is
/// past the end. Empty when there is nothing to prove (`m` is 0 or `n`).
pub fn consistency_proof(leaves: &[Hash], m: usize) -> Option<Vec<Hash>> {
    if m > leaves.len() {
        return None;
    }
    let mut proof = Vec::new();
    if m > 0 && m < leaves.len() {
        subproof(m, leaves, true, &mut proof);
    }
    Some(proof)
}

/// SUBPROOF(m, D[n], b) of RFC 6962 §2.1.2.
fn subproof(m: usize, leaves: &[Hash], complete: bool, out: &mut Vec<Hash>) {
    let n = leaves.len();
    if m == n {
        if !complete {
            out.push(root(leaves));
        }
        return;
    }
    let k = split(n);
    if m <= k {
        subproof(m, &leaves[..k], complete, out);
        out.push(root(&leaves[k..]));
    } else {
        subproof(m - k, &leaves[k..], false, out);
        out.push(root(&leaves[..k]));
    }
}

/// Whether `proof` shows that the tree of `first` leaves whose root is
/// `first_root` is a prefix of the tree of `second` leaves whose root is
/// `second_root` (RFC 9162 §2.1.4.2). The empty tree is a prefix of every
/// tree; a tree is consistent with itself only with an empty proof.
pub fn verify_consistency(
    first: u64,
    second: u64,
    first_root: &Hash,
    second_root: &Hash,
    proof: &[Hash],
) -> bool {
    if first > second {
        return false;
    }
    if first == 0 {
        return proof.is_empty();
    }
    if first == second {
        return proof.is_empty() && first_root == second_root;
    }
    let mut path = proof.to_vec();
    if first.is_power_of_two() {
        path.insert(0, *first_root);
    }
    let Some((&seed, rest)) = path.split_first() else {
        return false;
    };
    let (mut f_n, mut s_n) = (first - 1, second - 1);
    while f_n & 1 == 1 {
        f_n >>= 1;
        s_n >>= 1;
    }
    let (mut f_r, mut s_r) = (seed, seed);
    for c in rest {
        if s_n == 0 {
            return false;
        }
        if f_n & 1 == 1 || f_n == s_n {
            f_r = node_hash(c, &f_r);
            s_r = node_hash(c, &s_r);
            while f_n & 1 == 0 && f_n != 0 {
                f_n >>= 1;
                s_n >>= 1;
            }
        } else {
            s_r = node_hash(&s_r, c);
        }
        f_n >>= 1;
        s_n >>= 1;
    }
    s_n == 0 && &f_r == first_root && &s_r == second_root
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn leaves(n: usize) -> Vec<Hash> {
        (0..n)
            .map(|i| leaf_hash(format!("entry {i}").as_bytes()))
            .collect()
    }

    /// RFC 6962 MTH, written as the RFC writes it, to check the frontier.
    fn mth(d: &[Hash]) -> Hash {
        match d.len() {
            0 => empty_root(),
            1 => d[0],
            n => {
                let k = split(n);
                node_hash(&mth(&d[..k]), &mth(&d[k..]))
            }
        }
    }

    #[test]
    fn known_answers() {
        // The empty tree and a one-leaf tree, as every RFC 6962 log has them.
        assert_eq!(
            hex(&empty_root()),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            hex(&leaf_hash(b"")),
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"
        );
    }

    fn hex(h: &Hash) -> String {
        h.iter().map(|b| format!("{b:02x}")).collect()
    }

    proptest! {
        #[test]
        fn the_frontier_is_the_rfc_tree_and_every_proof_verifies(n in 1usize..80) {
            let d = leaves(n);
            let mut f = Frontier::default();
            for (i, l) in d.iter().enumerate() {
                prop_assert_eq!(f.root(), mth(&d[..i]));
                f.push(*l);
            }
            prop_assert_eq!(f.root(), mth(&d));
            let back = Frontier::restore(f.size(), &f.hashes()).unwrap();
            prop_assert_eq!(back.root(), f.root());
            let root = mth(&d);
            for i in 0..n {
                let path = inclusion_proof(&d, i).unwrap();
                prop_assert!(verify_inclusion(&d[i], i as u64, n as u64, &path, &root));
                prop_assert!(!verify_inclusion(&d[(i + 1) % n], i as u64, n as u64, &path, &root) || n == 1);
            }
        }

        #[test]
        fn every_prefix_is_proven_consistent_and_no_other_tree_is(n in 1usize..70, salt in 0usize..1000) {
            let d = leaves(n);
            let whole = mth(&d);
            for m in 0..=n {
                let proof = consistency_proof(&d, m).unwrap();
                let prefix = mth(&d[..m]);
                prop_assert!(verify_consistency(m as u64, n as u64, &prefix, &whole, &proof), "m={} n={}", m, n);
                if m == 0 || m == n {
                    continue;
                }
                // Another first tree of the same size: one leaf changed.
                let mut other = d[..m].to_vec();
                let i = salt % m;
                other[i] = leaf_hash(b"rewritten");
                prop_assert!(!verify_consistency(m as u64, n as u64, &mth(&other), &whole, &proof));
                // The same first tree, a second tree with a changed old leaf:
                // the proof of the real one does not carry over.
                let mut forked = d.clone();
                forked[i] = leaf_hash(b"rewritten");
                prop_assert!(!verify_consistency(m as u64, n as u64, &prefix, &mth(&forked), &proof));
                // A proof cut short or lengthened.
                prop_assert!(!verify_consistency(m as u64, n as u64, &prefix, &whole, &proof[1..]));
                let mut longer = proof.clone();
                longer.push(whole);
                prop_assert!(!verify_consistency(m as u64, n as u64, &prefix, &whole, &longer));
            }
            prop_assert!(consistency_proof(&d, n + 1).is_none());
        }
    }
}
