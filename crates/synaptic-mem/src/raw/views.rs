//! The safe views: [`Tensor`] (a descriptor and its data for a scope) and scratch slices.
//!
//! Only the safe scoped API (`crate::arena`) makes views, through the two `pub(crate)`
//! constructors here; it ties each view's lifetime `'t` to a scope that ends before the reset
//! or re-initialisation that reclaims the memory (see the module docs of `crate::arena`).

use core::marker::PhantomData;
use core::ptr::NonNull;

use super::RawArena;
use crate::dtype::{DType, Element, Lifetime};
use crate::error::{AllocError, ErrorKind, Region};
use crate::tensor::{TensorDesc, TensorRequest, DESC_SPAN};

impl RawArena<'_> {
    /// Allocates and wraps the descriptor in a view. Contract: the caller (crate::arena) ties
    /// `'t` to a scope that ends before the reset or re-init that reclaims the tensor.
    #[inline]
    pub(crate) fn alloc_view<'t>(
        &self,
        shape: &[u32],
        dtype: DType,
        lifetime: Lifetime,
    ) -> Result<Tensor<'t>, AllocError> {
        self.alloc(shape, dtype, lifetime).map(|desc| Tensor {
            desc,
            _mem: PhantomData,
        })
    }

    /// A persistent tensor of `dtype` whose length is known only once it is written (the
    /// safe API's `Loader::persistent_filled`): allocates the whole free tensor space as one
    /// 1-D tensor, lets `fill` write it and return how many leading elements it used, then
    /// keeps only those (the persistent region ends right after them, as if exactly that had
    /// been allocated). If `fill` fails, or returns 0 or more than it was given, the arena is
    /// left as it was, statistics included. Same lifetime contract as
    /// [`RawArena::alloc_view`]. INT4 (not byte-addressable) is refused.
    pub(crate) fn alloc_filled<'t, E: From<AllocError>>(
        &self,
        dtype: DType,
        fill: impl FnOnce(&mut Tensor<'t>) -> Result<u32, E>,
    ) -> Result<Tensor<'t>, E> {
        let elem = (dtype.bits() / 8) as usize;
        let start = self.top.get();
        if elem == 0 {
            return Err(self
                .fail(ErrorKind::InvalidDtype, Region::Persistent, 0)
                .into());
        }
        if start != self.pers_end.get() || self.scratch_top.get() != 0 {
            return Err(self
                .fail(ErrorKind::EphemeralLive, Region::Persistent, 0)
                .into());
        }
        // Every byte a tensor could take now, in whole 16-byte blocks, within a tensor's limit.
        let room = (self.tensor_cap.get().saturating_sub(start + DESC_SPAN) & !15)
            .min(crate::MAX_TENSOR_BYTES as usize);
        let max = (room / elem) as u32;
        if max == 0 {
            return Err(self
                .fail(ErrorKind::OutOfMemory, Region::Persistent, DESC_SPAN + 16)
                .into());
        }
        let saved = (
            self.top.get(),
            self.pers_end.get(),
            self.epoch_peak.get(),
            self.arena_peak.get(),
            self.ephemeral_peak.get(),
            self.alloc_count.get(),
        );
        let restore = || {
            self.top.set(saved.0);
            self.pers_end.set(saved.1);
            self.epoch_peak.set(saved.2);
            self.arena_peak.set(saved.3);
            self.ephemeral_peak.set(saved.4);
            self.alloc_count.set(saved.5);
        };
        let mut t = self.alloc_view(&[max], dtype, Lifetime::Persistent)?;
        let full_end = self.top.get();
        let used = match fill(&mut t) {
            Ok(n) if n >= 1 && n <= max => n,
            Ok(_) => {
                restore();
                return Err(self
                    .fail(ErrorKind::TooLarge, Region::Persistent, room)
                    .into());
            }
            Err(e) => {
                restore();
                return Err(e);
            }
        };
        let Ok(req) = TensorRequest::new(&[used], dtype) else {
            // Cannot happen: `used` elements fit where `max` did.
            return Ok(t);
        };
        // The tensor is still the last allocation (it took all the room `fill` could have
        // allocated from): shrink it in place. Otherwise keep it whole.
        if self.top.get() == full_end && self.pers_end.get() == full_end {
            // SAFETY: `t` is the only view of this descriptor (just made, borrowed mutably
            // by `fill` only for the call); it lies inside the persistent region at `start`.
            unsafe {
                let d = t.desc.as_ptr();
                (*d).shape[0] = used;
                (*d).size = req.bytes();
            }
            let end = start + req.span();
            self.top.set(end);
            self.pers_end.set(end);
            self.epoch_peak.set(end);
        }
        Ok(t)
    }

    /// Takes scratch bytes as a slice. Same contract as [`RawArena::alloc_view`].
    #[inline]
    pub(crate) fn scratch_view<'t>(&self, size: usize) -> Result<&'t mut [u8], AllocError> {
        let p = self.scratch_acquire(size)?;
        // SAFETY: `size` bytes from `p` lie in the scratch pool above the old scratch offset, so
        // no other block or view refers to them (invariant 3); the contract keeps the slice from
        // outliving the reset that reclaims them. `u8` is valid for any (even uninit-free:
        // the arena memory came from an initialised `&mut [u8]` or the C caller) bytes.
        Ok(unsafe { core::slice::from_raw_parts_mut(p.as_ptr(), size) })
    }
}

/// One scope's scratch block, handed out as typed temporaries: what a kernel gets for its
/// call ([`PlannedInference::with_scratch`](crate::PlannedInference::with_scratch),
/// [`Inference::with_scratch`](crate::Inference::with_scratch)), or any byte buffer
/// ([`Scratch::new`]: tests, a caller's own memory). Each [`Scratch::take`] starts on a 16-byte
/// boundary, so a kernel sizes its block as the sum of [`Scratch::span`] over its takes (exact
/// when the block is 16-byte aligned, as the scratch pool's are).
///
/// ```
/// use synaptic_mem::Scratch;
/// let mut buf = [0u8; 64];
/// let mut s = Scratch::new(&mut buf);
/// let words: &mut [u32] = s.take(4).unwrap();
/// words.fill(7);
/// let bytes: &mut [i8] = s.take(8).unwrap();
/// bytes.fill(-1);
/// assert!(s.take::<i32>(64).is_none()); // more than is left: nothing taken
/// assert_eq!(Scratch::span::<u32>(4) + Scratch::span::<i8>(8), 32);
/// ```
pub struct Scratch<'s> {
    rest: &'s mut [u8],
}

impl core::fmt::Debug for Scratch<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Scratch")
            .field("remaining", &self.rest.len())
            .finish()
    }
}

impl<'s> Scratch<'s> {
    /// The temporaries of `buf`.
    #[inline]
    pub fn new(buf: &'s mut [u8]) -> Self {
        Scratch { rest: buf }
    }

    /// No bytes: every take of one element or more fails.
    #[inline]
    pub fn empty() -> Self {
        Scratch { rest: &mut [] }
    }

    /// Bytes not yet taken (some may go to alignment).
    #[inline]
    pub fn remaining(&self) -> usize {
        self.rest.len()
    }

    /// The bytes [`Scratch::take`] of `n` `T`s uses from a 16-byte aligned position: `n`
    /// elements rounded up to 16 bytes (saturating). The one sizing rule for a kernel's block.
    #[inline]
    pub const fn span<T: Element>(n: usize) -> usize {
        let bytes = n.saturating_mul(core::mem::size_of::<T>());
        match bytes.checked_add(15) {
            Some(b) => b & !15,
            None => usize::MAX & !15,
        }
    }

    /// `n` elements of `T`, 16-byte aligned, for as long as the scope lasts; their contents
    /// are whatever the memory held (a kernel writes before it reads). `None` (and nothing
    /// taken) if what is left cannot hold them.
    #[inline]
    pub fn take<T: Element>(&mut self, n: usize) -> Option<&'s mut [T]> {
        let skip = self.rest.as_ptr().align_offset(16);
        let bytes = n.checked_mul(core::mem::size_of::<T>())?;
        let need = skip.checked_add(bytes)?;
        if need > self.rest.len() {
            return None;
        }
        let used = skip.saturating_add(Self::span::<T>(n)).min(self.rest.len());
        let (head, tail) = core::mem::take(&mut self.rest).split_at_mut(used);
        self.rest = tail;
        let block = &mut head[skip..need];
        // SAFETY: `block` is `n · size_of::<T>()` bytes borrowed exclusively for 's, starting
        // on a 16-byte boundary (≥ align_of::<T>() for every sealed `Element`), and every
        // `Element` is valid for any bit pattern.
        Some(unsafe { core::slice::from_raw_parts_mut(block.as_mut_ptr().cast::<T>(), n) })
    }
}

/// A tensor allocated through the safe API: its descriptor and exclusive access to its data for
/// `'t`, the scope it was allocated in (the inference for ephemeral tensors, the arena split for
/// persistent and shared ones).
///
/// ```
/// use synaptic_mem::{Arena, ArenaBuffer, DType};
/// let mut buf = ArenaBuffer::<8192>::new();
/// let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
/// let (loader, _runner) = arena.split();
/// let mut w = loader.persistent(&[2, 2], DType::Float32).unwrap();
/// w.as_mut_slice::<f32>().unwrap().copy_from_slice(&[1.0, 2.0, 3.0, 4.0]);
/// assert_eq!(w.as_slice::<f32>().unwrap()[3], 4.0);
/// assert!(w.as_slice::<i8>().is_err()); // checked against the dtype
/// assert_eq!(w.as_ptr() as usize % 16, 0); // DMA-ready
/// ```
pub struct Tensor<'t> {
    pub(super) desc: NonNull<TensorDesc>,
    pub(super) _mem: PhantomData<&'t mut TensorDesc>,
}

impl core::fmt::Debug for Tensor<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.descriptor().fmt(f)
    }
}

/// A typed view was asked of a tensor whose data type does not match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DTypeMismatch {
    /// The tensor's data type.
    pub actual: DType,
}

impl core::fmt::Display for DTypeMismatch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "tensor data type is {}", self.actual.name())
    }
}

impl<'t> Tensor<'t> {
    /// The C-layout descriptor.
    #[inline]
    pub fn descriptor(&self) -> &TensorDesc {
        // SAFETY: the descriptor was written by `RawArena::alloc` and stays valid and unchanged
        // for 't (module contract); only shared access is handed out here.
        unsafe { self.desc.as_ref() }
    }

    /// Pointer to the descriptor, e.g. to hand the tensor to a C kernel as `syn_tensor_t *`.
    #[inline]
    pub fn descriptor_ptr(&self) -> NonNull<TensorDesc> {
        self.desc
    }

    /// The used dimensions.
    #[inline]
    pub fn shape(&self) -> &[u32] {
        self.descriptor().shape()
    }

    /// Element type.
    #[inline]
    pub fn dtype(&self) -> DType {
        self.descriptor().dtype
    }

    /// Lifetime class.
    #[inline]
    pub fn lifetime(&self) -> Lifetime {
        self.descriptor().lifetime
    }

    /// Bytes of data.
    #[inline]
    pub fn size(&self) -> usize {
        self.descriptor().size()
    }

    /// The 16-byte aligned data address (a DMA source).
    #[inline]
    pub fn as_ptr(&self) -> *const u8 {
        self.descriptor().data
    }

    /// The 16-byte aligned data address (a DMA target).
    #[inline]
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.descriptor().data
    }

    /// The data bytes.
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        let d = self.descriptor();
        // SAFETY: `data .. data + size` was reserved for this tensor alone (invariant 3) and
        // stays so for 't; `&self` gives shared access only.
        unsafe { core::slice::from_raw_parts(d.data, d.size()) }
    }

    /// The data bytes, writable.
    #[inline]
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        let d = self.descriptor();
        let (data, size) = (d.data, d.size());
        // SAFETY: as in `bytes`; `&mut self` makes this the only live view of the data.
        unsafe { core::slice::from_raw_parts_mut(data, size) }
    }

    /// The data as `&[T]`, if `T` matches the data type (e.g. `f32` for FLOAT32).
    #[inline]
    pub fn as_slice<T: Element>(&self) -> Result<&[T], DTypeMismatch> {
        let d = self.descriptor();
        if !T::matches(d.dtype) {
            return Err(DTypeMismatch { actual: d.dtype });
        }
        // SAFETY: `data` is 16-byte aligned (≥ align_of::<T>() for every sealed `Element`),
        // the length covers only whole `T`s inside the tensor's `size` bytes, and every
        // `Element` is valid for any bit pattern.
        Ok(unsafe {
            core::slice::from_raw_parts(d.data.cast::<T>(), d.size() / core::mem::size_of::<T>())
        })
    }

    /// The data as `&mut [T]`, if `T` matches the data type.
    #[inline]
    pub fn as_mut_slice<T: Element>(&mut self) -> Result<&mut [T], DTypeMismatch> {
        let d = self.descriptor();
        if !T::matches(d.dtype) {
            return Err(DTypeMismatch { actual: d.dtype });
        }
        let (data, len) = (d.data, d.size() / core::mem::size_of::<T>());
        // SAFETY: as in `as_slice`; `&mut self` makes this the only live view of the data.
        Ok(unsafe { core::slice::from_raw_parts_mut(data.cast::<T>(), len) })
    }
}

impl core::error::Error for DTypeMismatch {}
