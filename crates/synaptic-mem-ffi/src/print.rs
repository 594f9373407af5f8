//! Rendering the `syn mem stats` table (the core's `Stats` `Display`) without allocating.

use core::fmt::{self, Write};

use synaptic_mem::Stats;

/// Bytes buffered before a chunk goes to the output (the whole table usually fits in 4 chunks).
const CHUNK: usize = 128;

struct ChunkWriter<F: FnMut(&[u8])> {
    buf: [u8; CHUNK],
    len: usize,
    emit: F,
}

impl<F: FnMut(&[u8])> ChunkWriter<F> {
    fn flush(&mut self) {
        if self.len > 0 {
            (self.emit)(&self.buf[..self.len]);
            self.len = 0;
        }
    }
}

impl<F: FnMut(&[u8])> Write for ChunkWriter<F> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let mut rest = s.as_bytes();
        while !rest.is_empty() {
            if self.len == CHUNK {
                self.flush();
            }
            let n = rest.len().min(CHUNK - self.len);
            self.buf[self.len..self.len + n].copy_from_slice(&rest[..n]);
            self.len += n;
            rest = &rest[n..];
        }
        Ok(())
    }
}

/// Formats `stats` exactly as its `Display` does, handing the text to `emit` in chunks of at
/// most 128 bytes (concatenated, they are the whole text).
pub(crate) fn render(stats: &Stats, emit: impl FnMut(&[u8])) {
    let mut w = ChunkWriter {
        buf: [0; CHUNK],
        len: 0,
        emit,
    };
    // Writing into the buffer never fails, and `Stats`' Display only forwards writer errors.
    let _ = write!(w, "{stats}");
    w.flush();
}
