//! `.hit` files: the 16-byte header (`HIT!`, 1, 8, `TRAX`), code from offset 16, and the
//! TSO export table `ENTP … EENT` found by scanning (hit-reference §2.1).
//!
//! Addresses everywhere are byte offsets into the whole file, so [`HitFile::bytes`] is
//! what the VM and the disassembler index.

use thiserror::Error;

/// Size of the header; code starts here.
pub const HEADER_LEN: usize = 16;
/// First four bytes of every `.hit` file.
pub const MAGIC: [u8; 4] = *b"HIT!";
/// Header major version.
pub const MAJOR: u32 = 1;
/// Header minor version.
pub const MINOR: u32 = 8;
/// Last four header bytes.
pub const TAG: [u8; 4] = *b"TRAX";
/// Start marker of the export table.
pub const ENTP: [u8; 4] = *b"ENTP";
/// End marker of the export table.
pub const EENT: [u8; 4] = *b"EENT";

/// Why bytes are not a usable `.hit` file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HitError {
    /// Fewer than 16 bytes: the header is cut off.
    #[error("file is {len} bytes long, shorter than the 16-byte .hit header")]
    Truncated {
        /// Length of the input.
        len: usize,
    },
    /// The file does not start with `HIT!`.
    #[error("not a .hit file: starts with {found:?}, expected \"HIT!\"")]
    BadMagic {
        /// The first four bytes, shown escaped.
        found: String,
    },
    /// Version fields other than 1 and 8.
    #[error("unsupported .hit version {major}.{minor} (expected 1.8)")]
    BadVersion {
        /// Major version found.
        major: u32,
        /// Minor version found.
        minor: u32,
    },
    /// Bytes 12..16 are not `TRAX`.
    #[error("bad .hit header: bytes 12-15 are {found:?}, expected \"TRAX\"")]
    BadTag {
        /// The four bytes, shown escaped.
        found: String,
    },
    /// An `ENTP` marker without a matching `EENT` (the table is cut off).
    #[error("export table at offset {offset} has no EENT end marker (file truncated?)")]
    UnterminatedEntryTable {
        /// Offset of the `ENTP` marker.
        offset: usize,
    },
}

/// One export: a track ID and the address of its code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Entry {
    /// Track ID.
    pub track_id: u32,
    /// Code address (byte offset into the file).
    pub address: u32,
}

/// The `ENTP … EENT` export table and where it sits.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EntryTable {
    /// Offset of the `ENTP` marker (may be unaligned).
    pub offset: usize,
    /// Offset just past the `EENT` marker.
    pub end: usize,
    /// Entries in file order.
    pub entries: Vec<Entry>,
}

/// A `.hit` file held whole in memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HitFile {
    bytes: Vec<u8>,
    entry_table: Option<EntryTable>,
}

fn escaped(bytes: &[u8]) -> String {
    bytes.escape_ascii().to_string()
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

impl HitFile {
    /// Checks the header and finds the export table.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self, HitError> {
        if bytes.len() < HEADER_LEN {
            return Err(HitError::Truncated { len: bytes.len() });
        }
        if bytes[0..4] != MAGIC {
            return Err(HitError::BadMagic {
                found: escaped(&bytes[0..4]),
            });
        }
        let major = u32_at(&bytes, 4).unwrap_or_default();
        let minor = u32_at(&bytes, 8).unwrap_or_default();
        if (major, minor) != (MAJOR, MINOR) {
            return Err(HitError::BadVersion { major, minor });
        }
        if bytes[12..16] != TAG {
            return Err(HitError::BadTag {
                found: escaped(&bytes[12..16]),
            });
        }
        let entry_table = find_entry_table(&bytes)?;
        Ok(Self { bytes, entry_table })
    }

    /// Builds a file from code (the bytes that follow the header).
    pub fn from_code(code: &[u8]) -> Self {
        let mut bytes = Vec::with_capacity(HEADER_LEN + code.len());
        bytes.extend_from_slice(&header());
        bytes.extend_from_slice(code);
        // A table the code spells out but leaves unterminated is simply not a table here:
        // the assembler reports that case itself.
        let entry_table = find_entry_table(&bytes).ok().flatten();
        Self { bytes, entry_table }
    }

    /// The whole file, header included.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Consumes the file, returning its bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// The code: everything after the header.
    pub fn code(&self) -> &[u8] {
        self.bytes.get(HEADER_LEN..).unwrap_or(&[])
    }

    /// Overwrites the 4-byte little-endian field at `offset` of the code (binding a
    /// late-bound symbol). False, and nothing changes, if the field is not inside the
    /// code or overlaps the header or the export table.
    pub fn patch_u32(&mut self, offset: usize, value: u32) -> bool {
        let end = offset.saturating_add(4);
        let in_table = self
            .entry_table
            .as_ref()
            .is_some_and(|t| offset < t.end && end > t.offset);
        if offset < HEADER_LEN || end > self.bytes.len() || in_table {
            return false;
        }
        self.bytes[offset..end].copy_from_slice(&value.to_le_bytes());
        true
    }

    /// The export table, if the file has one.
    pub fn entry_table(&self) -> Option<&EntryTable> {
        self.entry_table.as_ref()
    }

    /// The address exported for a track ID.
    pub fn entry(&self, track_id: u32) -> Option<u32> {
        self.entry_table
            .as_ref()?
            .entries
            .iter()
            .find(|e| e.track_id == track_id)
            .map(|e| e.address)
    }
}

/// The 16 header bytes.
pub fn header() -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[0..4].copy_from_slice(&MAGIC);
    h[4..8].copy_from_slice(&MAJOR.to_le_bytes());
    h[8..12].copy_from_slice(&MINOR.to_le_bytes());
    h[12..16].copy_from_slice(&TAG);
    h
}

/// Scans for `ENTP`, as the game and FreeSO do: the first `ENTP` followed by whole
/// 8-byte entries and then `EENT` is the table. If `ENTP` appears but no occurrence is
/// terminated, the table was cut off.
pub fn find_entry_table(bytes: &[u8]) -> Result<Option<EntryTable>, HitError> {
    // An `ENTP` at `offset` is ended by the first `EENT` at `offset + 4 + 8k`: the bytes
    // before it are read as whole entries whatever they hold. So only `EENT`s in the same
    // residue class mod 8 as `offset + 4` can end it, and since `ENTP`s are visited in
    // order, one cursor per class finds each one's candidate in a single pass (trying
    // each `ENTP` to the end of the file was quadratic).
    let start = HEADER_LEN.min(bytes.len());
    let mut eents: [Vec<usize>; 8] = Default::default();
    for at in positions(bytes, start, &EENT) {
        eents[at % 8].push(at);
    }
    let mut cursors = [0usize; 8];
    let mut first_unterminated = None;
    for offset in positions(bytes, start, &ENTP) {
        let first = offset + 4;
        let class = first % 8;
        let candidates = &eents[class];
        let cursor = &mut cursors[class];
        while candidates.get(*cursor).is_some_and(|&at| at < first) {
            *cursor += 1;
        }
        let Some(&end_marker) = candidates.get(*cursor) else {
            first_unterminated.get_or_insert(offset);
            continue;
        };
        let entries = (first..end_marker)
            .step_by(8)
            .filter_map(|at| {
                Some(Entry {
                    track_id: u32_at(bytes, at)?,
                    address: u32_at(bytes, at + 4)?,
                })
            })
            .collect();
        return Ok(Some(EntryTable {
            offset,
            end: end_marker + 4,
            entries,
        }));
    }
    match first_unterminated {
        Some(offset) => Err(HitError::UnterminatedEntryTable { offset }),
        None => Ok(None),
    }
}

/// Every offset from `start` on where `needle` begins, in order.
fn positions<'a>(
    bytes: &'a [u8],
    start: usize,
    needle: &'a [u8],
) -> impl Iterator<Item = usize> + 'a {
    bytes
        .get(start..)
        .unwrap_or(&[])
        .windows(needle.len())
        .enumerate()
        .filter(move |(_, w)| *w == needle)
        .map(move |(i, _)| start + i)
}

/// Encodes an export table (markers included) for the given entries.
pub fn encode_entry_table(entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + entries.len() * 8);
    out.extend_from_slice(&ENTP);
    for entry in entries {
        out.extend_from_slice(&entry.track_id.to_le_bytes());
        out.extend_from_slice(&entry.address.to_le_bytes());
    }
    out.extend_from_slice(&EENT);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The table rule written the slow, obvious way: try every `ENTP` in order.
    fn by_the_rule(bytes: &[u8]) -> Result<Option<EntryTable>, HitError> {
        let mut first_unterminated = None;
        for offset in HEADER_LEN..bytes.len() {
            if bytes.get(offset..offset + 4) != Some(&ENTP[..]) {
                continue;
            }
            let mut entries = Vec::new();
            let mut at = offset + 4;
            loop {
                if bytes.get(at..at + 4) == Some(&EENT[..]) {
                    return Ok(Some(EntryTable {
                        offset,
                        end: at + 4,
                        entries,
                    }));
                }
                match (u32_at(bytes, at), u32_at(bytes, at + 4)) {
                    (Some(track_id), Some(address)) => {
                        entries.push(Entry { track_id, address });
                        at += 8;
                    }
                    _ => break,
                }
            }
            first_unterminated.get_or_insert(offset);
        }
        match first_unterminated {
            Some(offset) => Err(HitError::UnterminatedEntryTable { offset }),
            None => Ok(None),
        }
    }

    #[test]
    fn header_round_trip() {
        let file = HitFile::from_code(&[0x0C]);
        assert_eq!(&file.bytes()[..4], b"HIT!");
        assert_eq!(file.code(), &[0x0C]);
        let again = HitFile::from_bytes(file.bytes().to_vec());
        assert_eq!(again, Ok(file));
    }

    #[test]
    fn header_errors() {
        assert_eq!(
            HitFile::from_bytes(b"HIT!".to_vec()),
            Err(HitError::Truncated { len: 4 })
        );
        let mut bad = header().to_vec();
        bad[0] = b'X';
        assert!(matches!(
            HitFile::from_bytes(bad),
            Err(HitError::BadMagic { .. })
        ));
        let mut bad = header().to_vec();
        bad[8] = 9;
        assert_eq!(
            HitFile::from_bytes(bad),
            Err(HitError::BadVersion { major: 1, minor: 9 })
        );
        let mut bad = header().to_vec();
        bad[15] = b'Y';
        assert!(matches!(
            HitFile::from_bytes(bad),
            Err(HitError::BadTag { .. })
        ));
    }

    #[test]
    fn entry_table_found_unaligned() {
        let mut code = vec![0x0F, 0x0C, 0x0C];
        let entries = [
            Entry {
                track_id: 7,
                address: 16,
            },
            Entry {
                track_id: 0xB0F4,
                address: 17,
            },
        ];
        code.extend(encode_entry_table(&entries));
        code.push(0x0C);
        let file = HitFile::from_code(&code);
        let table = file.entry_table().cloned().unwrap_or_default();
        assert_eq!(table.offset, 19);
        assert_eq!(table.end, 19 + 4 + 16 + 4);
        assert_eq!(table.entries, entries);
        assert_eq!(file.entry(0xB0F4), Some(17));
        assert_eq!(file.entry(8), None);
    }

    #[test]
    fn truncated_entry_table_is_an_error() {
        let mut bytes = header().to_vec();
        bytes.extend_from_slice(b"ENTP");
        bytes.extend_from_slice(&[1, 0, 0, 0, 16, 0]);
        assert_eq!(
            HitFile::from_bytes(bytes),
            Err(HitError::UnterminatedEntryTable { offset: 16 })
        );
    }

    /// Found by the fuzzer: every unterminated `ENTP` used to be scanned to the end of the
    /// file, so a file of many `ENTP`s took time quadratic in its length (a megabyte:
    /// hours). A 4 MiB file of them must be read in well under the generous limit.
    #[test]
    fn many_unterminated_entry_tables_are_read_in_linear_time() {
        let mut bytes = header().to_vec();
        for _ in 0..(1 << 20) {
            bytes.extend_from_slice(&ENTP);
        }
        let (done, result) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = done.send(HitFile::from_bytes(bytes));
        });
        let read = result.recv_timeout(std::time::Duration::from_secs(10));
        assert_eq!(
            read.expect("a file of 4 MiB of ENTP markers took more than 10 s to read"),
            Err(HitError::UnterminatedEntryTable { offset: 16 })
        );
    }

    #[test]
    fn the_table_is_the_first_entp_with_an_eent_a_whole_entry_away() {
        // `ENTP` at 16 has an `EENT` 6 bytes on (not a whole entry): unterminated. The one
        // at 26 is ended by the `EENT` 8 bytes after its marker: one entry.
        let mut code = b"ENTP\x01\x00EENT".to_vec();
        code.extend_from_slice(b"ENTP\x07\x00\x00\x00\x10\x00\x00\x00EENT");
        let mut bytes = header().to_vec();
        bytes.extend_from_slice(&code);
        let table = find_entry_table(&bytes).unwrap().unwrap();
        assert_eq!(table.offset, 26);
        assert_eq!(table.end, 26 + 4 + 8 + 4);
        assert_eq!(
            table.entries,
            [Entry {
                track_id: 7,
                address: 16
            }]
        );
    }

    proptest! {
        /// The scan agrees with the plain reading of the rule: the first `ENTP` followed
        /// by whole 8-byte entries and then `EENT`.
        #[test]
        fn entry_table_matches_the_rule(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just(ENTP.to_vec()),
                    Just(EENT.to_vec()),
                    proptest::collection::vec(any::<u8>(), 1..6)
                ],
                0..30,
            )
        ) {
            let mut bytes = header().to_vec();
            bytes.extend(parts.concat());
            prop_assert_eq!(find_entry_table(&bytes), by_the_rule(&bytes));
        }

        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = HitFile::from_bytes(bytes.clone());
            let mut with_header = header().to_vec();
            with_header.extend(bytes);
            let _ = HitFile::from_bytes(with_header);
        }
    }
}
