//! 8-bit grayscale BMP images as model input (person_detect's camera frames).
//!
//! The one place the repository turns a `.bmp` into input bytes: the main job
//! (`examples/person_detect`), the TFLM oracle tests and firmware (a BMP in flash, decoded
//! without allocation) all call [`gray8`]. The rule is TFLM's `person_detection_test.cc`: the
//! pixel bytes in PIL's order — rows top-down, each row left to right, BMP row padding dropped —
//! copied into the int8 input tensor unchanged (as two's-complement bytes). Feeding
//! `pixel - 128` instead makes TFLM itself score `person.bmp` as "no person" (4 to -4).
//!
//! Only uncompressed (`BI_RGB`) 8-bit palette images are read; the palette is ignored (the
//! shared images use the identity gray palette, as PIL does for mode `L`).

use core::fmt;

/// Why a BMP could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BmpError {
    /// Not a BMP (no `BM` signature) or a header shorter than it says.
    NotBmp,
    /// A BMP this decoder does not read (bits per pixel other than 8, compression, …).
    Unsupported(&'static str),
    /// The pixel data runs past the end of the file.
    Truncated,
    /// The caller's buffer does not hold width × height bytes.
    Size {
        /// Image width in pixels.
        width: usize,
        /// Image height in pixels.
        height: usize,
        /// Bytes of the caller's buffer.
        got: usize,
    },
}

impl fmt::Display for BmpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BmpError::NotBmp => f.write_str("not a BMP file"),
            BmpError::Unsupported(what) => write!(f, "unsupported BMP: {what}"),
            BmpError::Truncated => f.write_str("BMP pixel data truncated"),
            BmpError::Size { width, height, got } => write!(
                f,
                "a {width}x{height} image needs {} bytes, the input holds {got}",
                width * height
            ),
        }
    }
}

impl core::error::Error for BmpError {}

/// Width and height, in pixels, of an 8-bit BMP (checked as [`gray8`] checks it).
pub fn dimensions(bmp: &[u8]) -> Result<(usize, usize), BmpError> {
    header(bmp).map(|h| (h.width, h.height))
}

struct Header {
    data: usize,
    width: usize,
    height: usize,
    bottom_up: bool,
    row: usize,
}

fn header(b: &[u8]) -> Result<Header, BmpError> {
    if b.len() < 54 || &b[0..2] != b"BM" {
        return Err(BmpError::NotBmp);
    }
    let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
    let data = u32_at(10) as usize;
    if u32_at(14) < 40 {
        return Err(BmpError::Unsupported("an OS/2 (BITMAPCOREHEADER) header"));
    }
    let width = u32_at(18) as i32;
    let height = u32_at(22) as i32;
    if u16::from_le_bytes([b[28], b[29]]) != 8 {
        return Err(BmpError::Unsupported("bits per pixel other than 8"));
    }
    if u32_at(30) != 0 {
        return Err(BmpError::Unsupported("compression"));
    }
    if width <= 0 || height == 0 || height == i32::MIN {
        return Err(BmpError::Unsupported("an empty or negative-width image"));
    }
    let width = width as usize;
    let h = height.unsigned_abs() as usize;
    let row = width.div_ceil(4) * 4;
    let end = row
        .checked_mul(h)
        .and_then(|n| n.checked_add(data))
        .ok_or(BmpError::Truncated)?;
    if data < 54 || end - row + width > b.len() {
        return Err(BmpError::Truncated);
    }
    Ok(Header {
        data,
        width,
        height: h,
        bottom_up: height > 0,
        row,
    })
}

/// Decodes the 8-bit BMP `bmp` into `out` (width × height bytes, rows top-down: PIL's order,
/// the bytes TFLM's person_detect test feeds its int8 input). Returns the width and height.
///
/// ```
/// // A 2×2 image, stored bottom-up with rows padded to 4 bytes.
/// let mut bmp = vec![0u8; 54 + 1024];
/// bmp[0..2].copy_from_slice(b"BM");
/// bmp[10..14].copy_from_slice(&(54u32 + 1024).to_le_bytes());
/// bmp[14..18].copy_from_slice(&40u32.to_le_bytes());
/// bmp[18..22].copy_from_slice(&2i32.to_le_bytes());
/// bmp[22..26].copy_from_slice(&2i32.to_le_bytes());
/// bmp[28..30].copy_from_slice(&8u16.to_le_bytes());
/// bmp.extend_from_slice(&[3, 4, 0, 0, 1, 2, 0, 0]); // bottom row, then top row
/// let mut px = [0u8; 4];
/// assert_eq!(synaptic_run::bmp::gray8(&bmp, &mut px), Ok((2, 2)));
/// assert_eq!(px, [1, 2, 3, 4]);
/// ```
pub fn gray8(bmp: &[u8], out: &mut [u8]) -> Result<(usize, usize), BmpError> {
    let h = header(bmp)?;
    if out.len() != h.width * h.height {
        return Err(BmpError::Size {
            width: h.width,
            height: h.height,
            got: out.len(),
        });
    }
    for (y, dst) in out.chunks_exact_mut(h.width).enumerate() {
        let src = if h.bottom_up { h.height - 1 - y } else { y };
        let at = h.data + src * h.row;
        dst.copy_from_slice(&bmp[at..at + h.width]);
    }
    Ok((h.width, h.height))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(w: i32, h: i32, rows: &[&[u8]]) -> [u8; 200] {
        let mut b = [0u8; 200];
        b[0..2].copy_from_slice(b"BM");
        b[10..14].copy_from_slice(&54u32.to_le_bytes());
        b[14..18].copy_from_slice(&40u32.to_le_bytes());
        b[18..22].copy_from_slice(&w.to_le_bytes());
        b[22..26].copy_from_slice(&h.to_le_bytes());
        b[28..30].copy_from_slice(&8u16.to_le_bytes());
        let row = (w as usize).div_ceil(4) * 4;
        for (i, r) in rows.iter().enumerate() {
            b[54 + i * row..54 + i * row + r.len()].copy_from_slice(r);
        }
        b
    }

    #[test]
    fn rows_come_out_top_down() {
        let up = image(3, 2, &[&[4, 5, 6], &[1, 2, 3]]);
        let mut px = [0u8; 6];
        assert_eq!(gray8(&up, &mut px), Ok((3, 2)));
        assert_eq!(px, [1, 2, 3, 4, 5, 6]);
        // Negative height: stored top-down already.
        let down = image(3, -2, &[&[1, 2, 3], &[4, 5, 6]]);
        assert_eq!(gray8(&down, &mut px), Ok((3, 2)));
        assert_eq!(px, [1, 2, 3, 4, 5, 6]);
        assert_eq!(dimensions(&down), Ok((3, 2)));
    }

    #[test]
    fn bad_files_are_errors() {
        let mut px = [0u8; 6];
        assert_eq!(gray8(b"PNG", &mut px), Err(BmpError::NotBmp));
        let mut b = image(3, 2, &[]);
        b[28] = 24;
        assert!(matches!(gray8(&b, &mut px), Err(BmpError::Unsupported(_))));
        let b = image(3, 2, &[]);
        assert_eq!(
            gray8(&b, &mut [0u8; 5]),
            Err(BmpError::Size {
                width: 3,
                height: 2,
                got: 5
            })
        );
        let b = image(100, 100, &[]);
        assert_eq!(gray8(&b, &mut [0u8; 6]), Err(BmpError::Truncated));
        let mut b = image(3, 2, &[]);
        b[22..26].copy_from_slice(&i32::MIN.to_le_bytes());
        assert!(gray8(&b, &mut px).is_err());
    }
}
