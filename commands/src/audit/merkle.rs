//! The Merkle tree of RFC 9162 (Certificate Transparency 2.0, §2.1), over
//! leaf hashes already computed: hashing, inclusion and consistency proofs,
//! and their verification.
//!
//! - leaf hash `SHA-256(0x00 || leaf bytes)`, node hash
//!   `SHA-256(0x01 || left || right)`, the empty tree `SHA-256("")`;
//! - a tree of `n > 1` leaves splits at `k`, the largest power of two below `n`.
//!
//! Proof generation follows the RFC's recursive definitions (`PATH`,
//! `SUBPROOF`) over a slice of leaf hashes, so it costs O(n) hashes; the
//! verifiers follow §2.1.3.2 and §2.1.4.2 and cost O(log n). Pure: no IO.

use sha2::{Digest, Sha256};

/// A SHA-256 hash: a leaf, a node or a root.
pub type Hash = [u8; 32];

/// `SHA-256(0x00 || bytes)`: the hash of one leaf.
pub fn leaf_hash(bytes: &[u8]) -> Hash {
    let mut hasher = Sha256::new();
    hasher.update([0u8]);
    hasher.update(bytes);
    hasher.finalize().into()
}

/// `SHA-256(0x01 || left || right)`: an interior node.
pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    let mut hasher = Sha256::new();
    hasher.update([1u8]);
    hasher.update(left);
    hasher.update(right);
    hasher.finalize().into()
}

/// The largest power of two strictly below `n` (`n >= 2`).
fn split(n: usize) -> usize {
    let mut k = 1;
    while k * 2 < n {
        k *= 2;
    }
    k
}

/// The root of the tree over `leaves` (leaf hashes, in order): `MTH(D[n])`.
pub fn root(leaves: &[Hash]) -> Hash {
    match leaves.len() {
        0 => Sha256::digest([]).into(),
        1 => leaves[0],
        n => {
            let k = split(n);
            node_hash(&root(&leaves[..k]), &root(&leaves[k..]))
        }
    }
}

/// The audit path of leaf `index` in the tree over `leaves` (`PATH(m, D[n])`),
/// bottom up; `None` when `index` is not a leaf of it.
pub fn inclusion_proof(index: usize, leaves: &[Hash]) -> Option<Vec<Hash>> {
    (index < leaves.len()).then(|| path(index, leaves))
}

fn path(m: usize, leaves: &[Hash]) -> Vec<Hash> {
    let n = leaves.len();
    if n <= 1 {
        return Vec::new();
    }
    let k = split(n);
    let (mut proof, sibling) = if m < k {
        (path(m, &leaves[..k]), root(&leaves[k..]))
    } else {
        (path(m - k, &leaves[k..]), root(&leaves[..k]))
    };
    proof.push(sibling);
    proof
}

/// The consistency proof from the tree of the first `old_size` leaves to the
/// tree over all `leaves` (`PROOF(m, D[n])`; empty when `old_size` is 0 or
/// all of them); `None` when `old_size` exceeds the tree.
pub fn consistency_proof(old_size: usize, leaves: &[Hash]) -> Option<Vec<Hash>> {
    if old_size > leaves.len() {
        return None;
    }
    if old_size == 0 || old_size == leaves.len() {
        return Some(Vec::new());
    }
    Some(subproof(old_size, leaves, true))
}

fn subproof(m: usize, leaves: &[Hash], complete: bool) -> Vec<Hash> {
    let n = leaves.len();
    if m == n {
        return if complete {
            Vec::new()
        } else {
            vec![root(leaves)]
        };
    }
    let k = split(n);
    let (mut proof, sibling) = if m <= k {
        (subproof(m, &leaves[..k], complete), root(&leaves[k..]))
    } else {
        (subproof(m - k, &leaves[k..], false), root(&leaves[..k]))
    };
    proof.push(sibling);
    proof
}

/// Whether `proof` shows that `leaf` is leaf `index` of the tree of `size`
/// leaves whose root is `root` (RFC 9162 §2.1.3.2).
pub fn verify_inclusion(leaf: &Hash, index: u64, size: u64, proof: &[Hash], root: &Hash) -> bool {
    if index >= size {
        return false;
    }
    let (mut fnode, mut snode) = (index, size - 1);
    let mut r = *leaf;
    for p in proof {
        if snode == 0 {
            return false;
        }
        if fnode & 1 == 1 || fnode == snode {
            r = node_hash(p, &r);
            if fnode & 1 == 0 {
                while fnode & 1 == 0 && fnode != 0 {
                    fnode >>= 1;
                    snode >>= 1;
                }
            }
        } else {
            r = node_hash(&r, p);
        }
        fnode >>= 1;
        snode >>= 1;
    }
    snode == 0 && r == *root
}

/// Whether `proof` shows that the tree of `new_size` leaves with root
/// `new_root` extends the tree of `old_size` leaves with root `old_root`
/// (RFC 9162 §2.1.4.2; equal sizes need an empty proof and equal roots).
pub fn verify_consistency(
    old_size: u64,
    new_size: u64,
    proof: &[Hash],
    old_root: &Hash,
    new_root: &Hash,
) -> bool {
    if old_size > new_size {
        return false;
    }
    if old_size == new_size {
        return proof.is_empty() && old_root == new_root;
    }
    if old_size == 0 {
        return proof.is_empty();
    }
    let mut path: Vec<Hash> = proof.to_vec();
    if old_size.is_power_of_two() {
        path.insert(0, *old_root);
    }
    let Some((first, rest)) = path.split_first() else {
        return false;
    };
    let (mut fnode, mut snode) = (old_size - 1, new_size - 1);
    while fnode & 1 == 1 {
        fnode >>= 1;
        snode >>= 1;
    }
    let (mut fr, mut sr) = (*first, *first);
    for c in rest {
        if snode == 0 {
            return false;
        }
        if fnode & 1 == 1 || fnode == snode {
            fr = node_hash(c, &fr);
            sr = node_hash(c, &sr);
            if fnode & 1 == 0 {
                while fnode & 1 == 0 && fnode != 0 {
                    fnode >>= 1;
                    snode >>= 1;
                }
            }
        } else {
            sr = node_hash(&sr, c);
        }
        fnode >>= 1;
        snode >>= 1;
    }
    snode == 0 && fr == *old_root && sr == *new_root
}

/// The right edge of a growing tree: the roots of its perfect subtrees,
/// largest first. Appending a leaf and reading the root cost O(log n), so
/// the tree is kept as events are appended without reading it back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frontier {
    size: u64,
    /// (height, root) of each perfect subtree, left to right.
    peaks: Vec<(u32, Hash)>,
}

impl Frontier {
    /// The frontier of a tree of `leaves`.
    pub fn of(leaves: &[Hash]) -> Self {
        let mut frontier = Self::default();
        for leaf in leaves {
            frontier.push(*leaf);
        }
        frontier
    }

    /// Appends one leaf hash.
    pub fn push(&mut self, leaf: Hash) {
        let mut node = (0, leaf);
        while let Some(&(height, left)) = self.peaks.last() {
            if height != node.0 {
                break;
            }
            self.peaks.pop();
            node = (height + 1, node_hash(&left, &node.1));
        }
        self.peaks.push(node);
        self.size += 1;
    }

    /// How many leaves it has.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The root of the tree so far (`MTH`).
    pub fn root(&self) -> Hash {
        let mut peaks = self.peaks.iter().rev();
        let Some(&(_, mut root)) = peaks.next() else {
            return self::root(&[]);
        };
        for (_, left) in peaks {
            root = node_hash(left, &root);
        }
        root
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The leaves of Certificate Transparency's reference test vectors.
    const LEAVES: [&str; 8] = [
        "",
        "00",
        "10",
        "2021",
        "3031",
        "40414243",
        "5051525354555657",
        "606162636465666768696a6b6c6d6e6f",
    ];

    /// Their roots, for sizes 1 to 8.
    const ROOTS: [&str; 8] = [
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
        "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
    ];

    fn leaves() -> Vec<Hash> {
        LEAVES
            .iter()
            .map(|l| leaf_hash(&hex::decode(l).expect("hex")))
            .collect()
    }

    fn hexes(proof: &[Hash]) -> Vec<String> {
        proof.iter().map(hex::encode).collect()
    }

    #[test]
    fn roots_match_the_reference_vectors() {
        let leaves = leaves();
        assert_eq!(
            hex::encode(root(&[])),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        for (n, expected) in ROOTS.iter().enumerate() {
            assert_eq!(
                hex::encode(root(&leaves[..=n])),
                *expected,
                "size {}",
                n + 1
            );
        }
    }

    #[test]
    fn inclusion_and_consistency_proofs_match_the_reference_vectors() {
        let leaves = leaves();
        assert_eq!(
            hexes(&inclusion_proof(0, &leaves).expect("proof")),
            [
                "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
                "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
            ]
        );
        assert_eq!(
            hexes(&consistency_proof(6, &leaves).expect("proof")),
            [
                "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
                "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
                "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
            ]
        );
        assert_eq!(
            hexes(&consistency_proof(2, &leaves[..5]).expect("proof")),
            [
                "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            ]
        );
    }

    #[test]
    fn every_proof_of_trees_up_to_twenty_leaves_verifies_and_a_changed_one_does_not() {
        let leaves: Vec<Hash> = (0u8..20).map(|i| leaf_hash(&[i])).collect();
        for n in 1..=leaves.len() {
            let tree = &leaves[..n];
            let top = root(tree);
            for m in 0..n {
                let proof = inclusion_proof(m, tree).expect("proof");
                assert!(verify_inclusion(
                    &leaves[m], m as u64, n as u64, &proof, &top
                ));
                assert!(!verify_inclusion(
                    &leaves[(m + 1) % 20],
                    m as u64,
                    n as u64,
                    &proof,
                    &top
                ));
                if let Some(first) = proof.first() {
                    let mut bad = proof.clone();
                    bad[0] = node_hash(first, first);
                    assert!(!verify_inclusion(
                        &leaves[m], m as u64, n as u64, &bad, &top
                    ));
                }
            }
            for m in 1..=n {
                let proof = consistency_proof(m, tree).expect("proof");
                let old = root(&leaves[..m]);
                assert!(
                    verify_consistency(m as u64, n as u64, &proof, &old, &top),
                    "{m}->{n}"
                );
                if m < n {
                    let other = root(&leaves[1..=m]);
                    assert!(!verify_consistency(
                        m as u64, n as u64, &proof, &other, &top
                    ));
                }
            }
        }
        assert_eq!(inclusion_proof(3, &leaves[..3]), None);
        let mut frontier = Frontier::default();
        assert_eq!(frontier.root(), root(&[]));
        for n in 1..=leaves.len() {
            frontier.push(leaves[n - 1]);
            assert_eq!(frontier.root(), root(&leaves[..n]), "size {n}");
            assert_eq!(frontier.size(), n as u64);
        }
        assert_eq!(consistency_proof(4, &leaves[..3]), None);
    }
}
