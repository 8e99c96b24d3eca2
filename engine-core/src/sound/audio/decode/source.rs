//! Random-access byte sources (a slice in memory or a file on disk), so that format sniffing
//! and the RIFF chunk walker run unchanged on both without reading a whole file.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};

/// Bytes that can be read at any offset.
pub(crate) trait ByteSource {
    /// Total length in bytes.
    fn len(&self) -> u64;

    /// Reads up to `buf.len()` bytes starting at `offset`; returns how many were read, fewer
    /// only at the end of the source.
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<usize>;
}

impl dyn ByteSource + '_ {
    /// Reads exactly `N` bytes at `offset`, or `None` if the source ends before that.
    pub(crate) fn array_at<const N: usize>(&mut self, offset: u64) -> io::Result<Option<[u8; N]>> {
        let mut buf = [0u8; N];
        let n = self.read_at(offset, &mut buf)?;
        Ok((n == N).then_some(buf))
    }
}

/// A byte slice held in memory.
pub(crate) struct SliceSource<'a> {
    bytes: &'a [u8],
}

impl<'a> SliceSource<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes }
    }
}

impl ByteSource for SliceSource<'_> {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        let Ok(start) = usize::try_from(offset) else {
            return Ok(0);
        };
        let rest = self.bytes.get(start..).unwrap_or(&[]);
        let n = rest.len().min(buf.len());
        if let (Some(dst), Some(src)) = (buf.get_mut(..n), rest.get(..n)) {
            dst.copy_from_slice(src);
        }
        Ok(n)
    }
}

/// Bytes at the start of a file read in one call and kept: sniffing the format and
/// walking the RIFF chunks read a few bytes at a time, each of which would otherwise be
/// a seek and a read (a small sample lies in it whole).
const HEAD_BYTES: u64 = 64 * 1024;

/// A file on disk; its length is taken once, when it is opened, and its first
/// [`HEAD_BYTES`] are read once, when first asked for.
pub(crate) struct FileSource {
    file: File,
    len: u64,
    /// Where the file's own position is, when known: a read there needs no seek first.
    at: Option<u64>,
    /// The file's first bytes, once read (fewer than asked for only at its end).
    head: Option<Vec<u8>>,
}

impl FileSource {
    #[cfg(test)]
    pub(crate) fn new(file: File) -> io::Result<Self> {
        let len = file.metadata()?.len();
        Ok(Self::opened(file, len))
    }

    /// A file just opened (positioned at its start) whose length is `len`.
    pub(crate) fn opened(file: File, len: u64) -> Self {
        Self {
            file,
            len,
            at: Some(0),
            head: None,
        }
    }

    /// Gives the file back positioned at its start (symphonia reads from where it is).
    pub(crate) fn into_file(mut self) -> io::Result<File> {
        if self.at != Some(0) {
            self.file.seek(SeekFrom::Start(0))?;
        }
        Ok(self.file)
    }

    /// Reads from the file itself, at `offset`: no more than its length says is there
    /// (a read that would only find the end is not made).
    fn read_file_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        if self.at != Some(offset) {
            self.at = None;
            self.file.seek(SeekFrom::Start(offset))?;
            self.at = Some(offset);
        }
        let there = usize::try_from(self.len.saturating_sub(offset)).unwrap_or(usize::MAX);
        let want = buf.len().min(there);
        let mut filled = 0;
        let result = loop {
            let Some(rest) = buf.get_mut(filled..want).filter(|rest| !rest.is_empty()) else {
                break Ok(filled);
            };
            match self.file.read(rest) {
                Ok(0) => break Ok(filled),
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        self.at = match result {
            Ok(_) => self.at.map(|at| at + filled as u64),
            Err(_) => None,
        };
        result
    }
}

impl ByteSource for FileSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        if self.head.is_none() {
            let want = usize::try_from(self.len.min(HEAD_BYTES)).unwrap_or(0);
            let mut head = vec![0; want];
            let got = self.read_file_at(0, &mut head)?;
            head.truncate(got);
            self.head = Some(head);
        }
        let head = self.head.as_deref().unwrap_or_default();
        let end = offset.saturating_add(buf.len() as u64);
        // Served from the head when it holds the whole range, or holds the file to its
        // end (the head is shorter than asked for only there).
        let whole_file = (head.len() as u64) < HEAD_BYTES;
        if end <= head.len() as u64 || whole_file {
            return SliceSource::new(head).read_at(offset, buf);
        }
        self.read_file_at(offset, buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    #[test]
    fn slice_source_reads_short_at_end_and_nothing_past_it() {
        let mut slice = SliceSource::new(b"abcdef");
        let s: &mut dyn ByteSource = &mut slice;
        let mut buf = [0u8; 4];
        assert_eq!(s.read_at(4, &mut buf).unwrap(), 2);
        assert_eq!(&buf[..2], b"ef");
        assert_eq!(s.read_at(6, &mut buf).unwrap(), 0);
        assert_eq!(s.read_at(u64::MAX, &mut buf).unwrap(), 0);
        assert_eq!(s.array_at::<2>(1).unwrap(), Some(*b"bc"));
        assert_eq!(s.array_at::<2>(5).unwrap(), None);
    }

    #[test]
    fn file_source_reads_like_a_slice() {
        let dir = std::env::temp_dir().join(format!("hitbench-src-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bytes.bin");
        std::fs::write(&path, b"abcdef").unwrap();
        let mut file = FileSource::new(File::open(&path).unwrap()).unwrap();
        let s: &mut dyn ByteSource = &mut file;
        assert_eq!(s.len(), 6);
        assert_eq!(s.array_at::<3>(3).unwrap(), Some(*b"def"));
        assert_eq!(s.array_at::<3>(4).unwrap(), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn file_source_reads_no_further_than_its_length_and_back_from_anywhere() {
        let dir = std::env::temp_dir().join(format!("hitbench-len-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("grows.bin");
        let bytes: Vec<u8> = (0..HEAD_BYTES + 50).map(|i| (i % 253) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let file = File::open(&path).unwrap();
        let len = file.metadata().unwrap().len();
        let mut source = FileSource::opened(file, len);
        // Written to after it was opened: the source is what it was opened as.
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(&[7; 100])
            .unwrap();
        let s: &mut dyn ByteSource = &mut source;
        let mut buf = [0u8; 80];
        let offsets = [HEAD_BYTES + 10, 0, HEAD_BYTES + 40, HEAD_BYTES - 10];
        for offset in offsets {
            let n = s.read_at(offset, &mut buf).unwrap();
            let start = usize::try_from(offset).unwrap();
            let end = (start + 80).min(bytes.len());
            assert_eq!(&buf[..n], &bytes[start..end], "at {offset}");
        }
        // Given back at its start, whatever was read last.
        let mut rest = Vec::new();
        source.into_file().unwrap().read_to_end(&mut rest).unwrap();
        assert_eq!(&rest[..bytes.len()], &bytes[..]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn file_source_reads_across_the_end_of_its_head() {
        let dir = std::env::temp_dir().join(format!("hitbench-head-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("long.bin");
        let bytes: Vec<u8> = (0..HEAD_BYTES + 100).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let mut file = FileSource::new(File::open(&path).unwrap()).unwrap();
        let s: &mut dyn ByteSource = &mut file;
        let mut buf = [0u8; 64];
        for offset in [0, HEAD_BYTES - 32, HEAD_BYTES, HEAD_BYTES + 60] {
            let n = s.read_at(offset, &mut buf).unwrap();
            let start = usize::try_from(offset).unwrap();
            let end = (start + 64).min(bytes.len());
            assert_eq!(&buf[..n], &bytes[start..end], "at {offset}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
