//! What an operator's `prepare` works with ([`Prep`]: its tensors, checked, and the checks
//! TFLM's `Prepare` functions share) and what it returns ([`Prepared`]: the kernel chosen, its
//! parameters as program words, its tables).

use synaptic_tflite::{Floats, Model, Operator, SubGraph, TensorType};

use crate::error::{
    KernelError, LoadError, Operand, ShapeFault, TensorFault, TensorTypes, Unsupported,
};
use crate::format::codec::Words;
use crate::format::Isa;
use crate::math::{Activation, Padding};
use crate::ops::tables::{Constants, Table};
use crate::ops::Kernel;
use crate::ops::Kind;

use crate::model::{core_request, tinfo_known, ConstantBits, CoreRequest, OpView, TInfo};

/// Most parameter words of any kernel (ADD's int8 form takes 34; a test holds every kernel
/// to it). A [`Prepared`] carries this many on the stack of a load.
pub(crate) const MAX_PARAM_WORDS: usize = 34;

/// One operator being prepared: the model, the operator and its index.
pub(crate) struct Prep<'a, 'm> {
    pub(crate) model: &'a Model<'m>,
    pub(crate) sg: &'a SubGraph<'m>,
    pub(crate) v: &'a OpView<'m>,
    pub(crate) index: usize,
    /// The kernels the interpreter links ([`crate::ops::OpSet::KINDS`]).
    pub(crate) kinds: crate::ops::Kinds,
    /// The tensors read last (a kernel's prepare reads its filter, say, for its type, its
    /// scales and its data): each is read from the model once while it stays here. The
    /// compiler keeps one across its operator records, so an operator finds the output of
    /// the one before (its input, read first) still here.
    pub(crate) seen: &'a Seen<'m>,
    /// Which tensors hold constant data, as the graph's open found them (none known: every
    /// tensor's buffer read).
    pub(crate) constants: Option<&'a ConstantBits>,
    /// The kernels the program is compiled for (what it carries for them: [`Isa`]).
    pub(crate) isa: Isa,
}

/// Tensors [`Prep::seen`] keeps: an input, a filter, a bias and the output.
pub(crate) const PREP_SEEN: usize = 4;

/// The tensors read last (the entries stay where they are, [`TInfo`]s of 64 bytes or more).
/// Filled before each operator's `prepare` ([`Seen::read_operands`]: the operator's tensors
/// found here stay, the others' entries take those not found), then only read while the
/// operator is prepared: its kernel borrows its tensors from here ([`Prep::input_ref`])
/// instead of copying them. So an operator finds the output of the one before (its input)
/// still here, and the graph inputs the header read ([`Seen::put`]).
pub(crate) struct Seen<'m> {
    infos: [Option<TInfo<'m>>; PREP_SEEN],
    /// The tensor index of each entry (`usize::MAX`: empty), looked through without copying
    /// the entries.
    index: [usize; PREP_SEEN],
    /// The entry [`Seen::put`] takes next (in turn).
    next: u8,
}

// An operator's tensors kept as a bit an entry in a `u32`; entries taken by `& (PREP_SEEN - 1)`.
const _: () = assert!(PREP_SEEN.is_power_of_two() && PREP_SEEN <= 32);

impl Default for Seen<'_> {
    fn default() -> Self {
        Seen {
            infos: Default::default(),
            index: [usize::MAX; PREP_SEEN],
            next: 0,
        }
    }
}

impl<'m> Seen<'m> {
    /// The entry of tensor `t`, if it is here (an index is set only with its entry).
    fn entry(&self, t: usize) -> Option<usize> {
        self.index.iter().position(|&i| i == t)
    }

    /// Tensor `t`, if it is here.
    pub(crate) fn get(&self, t: usize) -> Option<&TInfo<'m>> {
        self.infos[self.entry(t)?].as_ref()
    }

    /// Keeps `info`, in the entries in turn.
    pub(crate) fn put(&mut self, info: TInfo<'m>) {
        let e = usize::from(self.next) & (PREP_SEEN - 1);
        self.index[e] = info.index;
        self.infos[e] = Some(info);
        self.next = self.next.wrapping_add(1);
    }

    /// Reads operator `v`'s inputs and first output (the tensors a kernel's `prepare` reads
    /// through [`Prep::input_ref`] and [`Prep::output_ref`]) as [`Prep::info`] does, those not
    /// here already, when they all fit: those here stay, each other one takes an entry that
    /// holds none of them. A tensor whose read fails is not kept: the kernel reads it again and
    /// refuses it, in its own order. Not inlined: the model reader's calls are not on the
    /// stack under the kernel's.
    #[inline(never)]
    pub(crate) fn read_operands(
        &mut self,
        model: &Model<'m>,
        sg: &SubGraph<'m>,
        constants: Option<&ConstantBits>,
        v: &OpView<'m>,
    ) {
        if v.n_in + 1 > PREP_SEEN {
            return;
        }
        let operands = v.inputs[..v.n_in]
            .iter()
            .filter_map(|&t| usize::try_from(t).ok())
            .chain(core::iter::once(v.output));
        // Bit `e`: entry `e` holds one of the operator's tensors; the others to read.
        let (mut keep, mut miss, mut n) = (0u32, [0usize; PREP_SEEN], 0);
        for t in operands {
            match self.entry(t) {
                Some(e) => keep |= 1 << e,
                None => {
                    miss[n & (PREP_SEEN - 1)] = t;
                    n += 1;
                }
            }
        }
        for k in 0..n.min(PREP_SEEN) {
            let t = miss[k];
            // (A tensor named twice: read once.)
            if miss[..k].contains(&t) {
                continue;
            }
            // At most `PREP_SEEN - 1` entries kept so far (this tensor is not one of them).
            let e = (!keep).trailing_zeros() as usize & (PREP_SEEN - 1);
            let known = constants.and_then(|c| c.get(t));
            if let Ok(info) = tinfo_known(model, sg, t, known) {
                self.index[e] = t;
                self.infos[e] = Some(info);
                keep |= 1 << e;
            }
        }
    }
}

/// An operator prepared: its kernel's kind code and parameter words, its requantization table
/// and accumulator constants (derived one entry at a time when the record is written), and
/// the inputs its kernel never reads (no location in the record, nothing views them).
pub(crate) struct Prepared<'m> {
    pub(crate) kind: u32,
    words: [u32; MAX_PARAM_WORDS],
    n_words: usize,
    pub(crate) table: Table<'m>,
    pub(crate) constants: Constants<'m>,
    /// Bit `k`: input `k` is not read by the kernel.
    pub(crate) unread: u32,
}

impl<'m> Prepared<'m> {
    /// Kernel `K` with parameters `p` (no table, no constants).
    #[inline(always)]
    pub(crate) fn of<K: Kernel + Kind>(cx: &Prep<'_, '_>, p: K::Params) -> Result<Self, LoadError> {
        Self::with::<K>(cx, p, Table::None, Constants::None)
    }

    /// Kernel `K` with parameters `p`, a requantization table and accumulator constants.
    /// Built where it is returned (some 270 bytes: nothing copied into it afterwards), in its
    /// caller (`p` not copied on the way).
    #[inline(always)]
    pub(crate) fn with<K: Kernel + Kind>(
        cx: &Prep<'_, '_>,
        p: K::Params,
        table: Table<'m>,
        constants: Constants<'m>,
    ) -> Result<Self, LoadError> {
        if !K::BUILT {
            return Err(cx.unsupported(Unsupported::NotBuilt));
        }
        if !crate::ops::linked(cx.kinds, K::KIND) {
            return Err(cx.unsupported(Unsupported::NotLinked));
        }
        // Every output written: the kernel's count exactly (a kernel run once per output:
        // any count the record holds).
        if (K::PER_OUTPUT && cx.v.n_out > crate::limits::MAX_OP_OUTPUTS)
            || (!K::PER_OUTPUT && cx.v.n_out != K::OUTPUTS)
        {
            return Err(cx.unsupported(Unsupported::OutputCount));
        }
        // No more inputs than the kernel's bound (its views: [`crate::ops::views`]).
        if cx.v.n_in > K::MAX_INPUTS {
            return Err(cx.unsupported(Unsupported::InputCount));
        }
        let n = <K::Params as Words>::N;
        let mut r = Ok(Prepared {
            kind: K::KIND,
            words: [0u32; MAX_PARAM_WORDS],
            n_words: n,
            table,
            constants,
            unread: 0,
        });
        // (`r` is the one value returned: built where it is returned, not copied there.)
        if let Ok(out) = &mut r {
            let put = out.words.get_mut(..n).is_some_and(|slot| p.put(slot));
            if !put {
                r = Err(cx.unsupported(Unsupported::ParamsTooLarge));
            }
        }
        r
    }

    /// With input `k` never read by the kernel.
    pub(crate) fn unread(mut self, k: usize) -> Self {
        self.unread |= 1u32.checked_shl(k as u32).unwrap_or(0);
        self
    }

    /// The parameter words.
    pub(crate) fn words(&self) -> &[u32] {
        &self.words[..self.n_words]
    }

    /// Whether the kernel reads input `k`.
    pub(crate) fn reads(&self, k: usize) -> bool {
        self.unread & 1u32.checked_shl(k as u32).unwrap_or(0) == 0
    }
}

impl<'a, 'm> Prep<'a, 'm> {
    /// The builtin code.
    pub(crate) fn code(&self) -> i32 {
        self.v.code
    }

    /// The operator, as TFLite names it.
    pub(crate) fn name(&self) -> &'static str {
        self.v.name
    }

    /// The operator's table (its builtin options).
    pub(crate) fn op(&self) -> &Operator<'m> {
        &self.v.op
    }

    /// A kernel error of this operator as a load error.
    pub(crate) fn err(&self, error: KernelError) -> LoadError {
        LoadError::Operator {
            op: self.index,
            name: self.v.name,
            error,
        }
    }

    /// An unsupported feature of this operator.
    pub(crate) fn unsupported(&self, reason: Unsupported) -> LoadError {
        self.err(KernelError::unsupported(self.v.name, reason))
    }

    /// A shape error of this operator.
    pub(crate) fn shape(&self, reason: ShapeFault) -> LoadError {
        self.err(KernelError::shape(self.v.name, reason))
    }

    /// A fault of tensor `t` of this operator.
    pub(crate) fn fault(&self, t: &TInfo<'_>, fault: TensorFault) -> LoadError {
        LoadError::Tensor {
            op: Some(self.index),
            name: self.v.name,
            tensor: t.index,
            fault,
        }
    }

    /// Refused unless the operator has `min..=max` inputs (TFLM's `NumInputs` checks: a
    /// trailing optional one may be given as -1; an extra input is refused, never ignored).
    pub(crate) fn inputs(&self, min: usize, max: usize) -> Result<(), LoadError> {
        if self.v.n_in < min || self.v.n_in > max {
            return Err(self.unsupported(Unsupported::InputCount));
        }
        Ok(())
    }

    /// Number of inputs.
    pub(crate) fn n_inputs(&self) -> usize {
        self.v.n_in
    }

    /// A tensor of this operator: checked by [`tinfo`] (the error names the operator), and an
    /// activation has no dimension of 0 (its kernel would loop over the other dimensions for
    /// nothing; a constant's size is bounded by its data).
    fn operand(&self, t: usize) -> Result<TInfo<'m>, LoadError> {
        // Checked where it was returned (a `TInfo` is 64 bytes: not moved out and back).
        let r = self.info(t);
        if let Ok(info) = &r {
            if info.empty && info.data.is_empty() {
                return Err(self.fault(info, TensorFault::EmptyDimension));
            }
        }
        r
    }

    /// Tensor `t` as [`tinfo`] reads it, the error naming the operator: copied from
    /// [`Prep::seen`] if it is there, else read from the model.
    pub(crate) fn info(&self, t: usize) -> Result<TInfo<'m>, LoadError> {
        if let Some(i) = self.seen.get(t) {
            return Ok(*i);
        }
        let known = self.constants.and_then(|c| c.get(t));
        tinfo_known(self.model, self.sg, t, known).map_err(|e| e.at_op(self.index, self.v.name))
    }

    /// Tensor `t`'s constant data (empty: none) and bytes, as [`Prep::info`] reads them
    /// (every check made): what an operator's record places it by.
    pub(crate) fn data_of(&self, t: usize) -> Result<(&'m [u8], usize), LoadError> {
        if let Some(i) = self.seen.get(t) {
            return Ok((i.data, i.bytes));
        }
        self.info(t).map(|i| (i.data, i.bytes))
    }

    /// Tensor `t`'s core allocation as an activation ([`core_request`]: `None`, one the
    /// arena cannot hold), read as [`Prep::info`] reads it: its plan slot's words. Not
    /// inlined: a tensor read is not in its caller's frame.
    #[inline(never)]
    pub(crate) fn core_request(&self, t: usize) -> Result<Option<CoreRequest>, LoadError> {
        if let Some(i) = self.seen.get(t) {
            return Ok(core_request(i));
        }
        self.info(t).map(|i| core_request(&i))
    }

    /// [`Prep::operand`] borrowed from [`Prep::seen`], where [`Seen::read_operands`] put it:
    /// nothing copied. A tensor not there failed its read (its error is returned) or was not
    /// read for lack of room (the operator has more inputs than the kernel takes:
    /// [`Unsupported::InputCount`]).
    fn operand_ref(&self, t: usize) -> Result<&'a TInfo<'m>, LoadError> {
        let seen: &'a Seen<'m> = self.seen;
        match seen.get(t) {
            Some(info) if info.empty && info.data.is_empty() => {
                Err(self.fault(info, TensorFault::EmptyDimension))
            }
            Some(info) => Ok(info),
            None => Err(match self.info(t) {
                Err(e) => e,
                Ok(_) => self.unsupported(Unsupported::InputCount),
            }),
        }
    }

    /// [`Prep::input`], borrowed ([`Prep::operand_ref`]).
    pub(crate) fn input_ref(&self, k: usize) -> Result<&'a TInfo<'m>, LoadError> {
        match self.v.inputs.get(k) {
            Some(&t) if k < self.v.n_in && t >= 0 => self.operand_ref(t as usize),
            _ => Err(self.unsupported(Unsupported::MissingInput(k as u8))),
        }
    }

    /// The type of input `k`, if it reads ([`Prep::input`]): borrowed where it can be (what
    /// a `prepare` that picks its kernel by type asks first).
    pub(crate) fn input_ty(&self, k: usize) -> Option<TensorType> {
        match self.input_ref(k) {
            Ok(t) => Some(t.ty),
            Err(_) => self.input(k).ok().map(|t| t.ty),
        }
    }

    /// The type of the output, if it reads ([`Prep::output`]), borrowed where it can be.
    pub(crate) fn output_ty(&self) -> Option<TensorType> {
        match self.output_ref() {
            Ok(t) => Some(t.ty),
            Err(_) => self.output().ok().map(|t| t.ty),
        }
    }

    /// [`Prep::output`], borrowed ([`Prep::operand_ref`]).
    pub(crate) fn output_ref(&self) -> Result<&'a TInfo<'m>, LoadError> {
        let out = self.operand_ref(self.v.output)?;
        if !out.data.is_empty() {
            return Err(self.unsupported(Unsupported::Constant(Operand::Output)));
        }
        Ok(out)
    }

    /// Input `k`, required.
    pub(crate) fn input(&self, k: usize) -> Result<TInfo<'m>, LoadError> {
        match self.v.inputs.get(k) {
            Some(&t) if k < self.v.n_in && t >= 0 => self.operand(t as usize),
            _ => Err(self.unsupported(Unsupported::MissingInput(k as u8))),
        }
    }

    /// Whether input `k` is given (not absent, not -1).
    pub(crate) fn has(&self, k: usize) -> bool {
        k < self.v.n_in && self.v.inputs.get(k).is_some_and(|&t| t >= 0)
    }

    /// The output (never a constant).
    pub(crate) fn output(&self) -> Result<TInfo<'m>, LoadError> {
        let r = self.operand(self.v.output);
        if r.as_ref().is_ok_and(|out| !out.data.is_empty()) {
            return Err(self.unsupported(Unsupported::Constant(Operand::Output)));
        }
        r
    }

    /// Output `k` (`output_at(0)` is [`Prep::output`]), never a constant.
    pub(crate) fn output_at(&self, k: usize) -> Result<TInfo<'m>, LoadError> {
        let t = self.v.outputs[..self.v.n_out]
            .get(k)
            .ok_or(self.unsupported(Unsupported::OutputCount))?;
        let out = self.operand(*t)?;
        if !out.data.is_empty() {
            return Err(self.unsupported(Unsupported::Constant(Operand::Output)));
        }
        Ok(out)
    }

    /// Refused unless `t` is of type `ty` (any tensor: activation, constant or state).
    pub(crate) fn type_of(
        &self,
        t: &TInfo<'_>,
        operand: Operand,
        ty: TensorType,
        expected: TensorTypes,
    ) -> Result<(), LoadError> {
        if t.ty != ty {
            return Err(self.unsupported(Unsupported::TensorType { operand, expected }));
        }
        Ok(())
    }

    /// The one input and the output of an element-wise or row kernel of int8 and float32:
    /// both activations of one type, float32 where this build has the float kernels, else
    /// int8 (another type refused as not that). Returns them and whether float32.
    pub(crate) fn unary_int8_or_f32(&self) -> Result<(TInfo<'m>, TInfo<'m>, bool), LoadError> {
        self.inputs(1, 1)?;
        let (x, out) = (self.input(0)?, self.output()?);
        let float = crate::ops::float::BUILT && x.ty == TensorType::Float32;
        let ty = if float {
            TensorType::Float32
        } else {
            TensorType::Int8
        };
        self.activation_of(&x, Operand::Input(0), ty)?;
        self.activation_of(&out, Operand::Output, ty)?;
        Ok((x, out, float))
    }

    /// Refused unless `t` (the operator's `operand`) is an int8 activation (not a constant).
    pub(crate) fn int8_activation(&self, t: &TInfo<'_>, operand: Operand) -> Result<(), LoadError> {
        self.activation_of(t, operand, TensorType::Int8)
    }

    /// Refused unless `t` (the operator's `operand`) is an activation (not a constant) of type
    /// `ty` (int8 or float32).
    pub(crate) fn activation_of(
        &self,
        t: &TInfo<'_>,
        operand: Operand,
        ty: TensorType,
    ) -> Result<(), LoadError> {
        if t.ty != ty {
            return Err(self.unsupported(Unsupported::TensorType {
                operand,
                expected: expected(ty),
            }));
        }
        if !t.data.is_empty() {
            return Err(self.unsupported(Unsupported::Constant(operand)));
        }
        Ok(())
    }

    /// Refused unless every tensor of `ts` has a quantization the kernel computes with (TFLM's
    /// kernels refuse one without: `TF_LITE_ENSURE_EQ(quantization.type,
    /// kTfLiteAffineQuantization)`).
    pub(crate) fn quantized(&self, ts: &[&TInfo<'_>]) -> Result<(), LoadError> {
        match ts.iter().find(|t| !t.quantized) {
            Some(t) => Err(self.fault(t, TensorFault::NotQuantized)),
            None => Ok(()),
        }
    }

    /// Refused unless `t` (the operator's `operand`) is a constant at least as long as its
    /// tensor.
    pub(crate) fn constant(&self, t: &TInfo<'_>, operand: Operand) -> Result<(), LoadError> {
        if t.data.is_empty() {
            Err(self.unsupported(Unsupported::NotConstant(operand)))
        } else if t.data.len() < t.bytes {
            Err(self.unsupported(Unsupported::ShortConstant(operand)))
        } else {
            Ok(())
        }
    }

    /// A fused activation of the options.
    pub(crate) fn activation(&self, a: i8) -> Result<Activation, LoadError> {
        Activation::from_tflite(self.v.name, a).map_err(|e| self.err(e))
    }

    /// A padding of the options.
    pub(crate) fn padding(&self, p: i8) -> Result<Padding, LoadError> {
        Padding::from_tflite(self.v.name, p).map_err(|e| self.err(e))
    }

    /// The scales of filter `w` (input `k`): one, or one per output channel along a dimension
    /// of as many entries (`PopulateConvolutionQuantizationParams`).
    pub(crate) fn filter_scales(
        &self,
        k: usize,
        w: &TInfo<'_>,
        channels: usize,
    ) -> Result<Floats<'m>, LoadError> {
        self.quantized(&[w])?;
        if w.scale_count > 1 {
            if w.scale_count != channels {
                return Err(self.fault(
                    w,
                    TensorFault::ScaleCount {
                        got: w.scale_count,
                        channels,
                    },
                ));
            }
            let along = usize::try_from(w.quantized_dimension)
                .ok()
                .and_then(|d| w.shape().get(d).copied());
            if along != Some(channels) {
                return Err(self.fault(
                    w,
                    TensorFault::QuantizedDimension {
                        got: w.quantized_dimension,
                        channels,
                    },
                ));
            }
        }
        let t = self.sg.tensor(self.v.inputs[k] as usize)?;
        match t.quantization()? {
            Some(q) => Ok(q.scales()?),
            None => Err(self.fault(w, TensorFault::NotQuantized)),
        }
    }

    /// Checks the optional int32 bias (input `k`) of `channels` channels.
    pub(crate) fn bias(&self, k: usize, channels: usize) -> Result<(), LoadError> {
        self.bias_of(k, channels, TensorType::Int32)
    }

    /// Checks the optional bias (input `k`) of `channels` channels, of type `ty`.
    pub(crate) fn bias_of(
        &self,
        k: usize,
        channels: usize,
        ty: TensorType,
    ) -> Result<(), LoadError> {
        if self.has(k) {
            let b = self.input(k)?;
            if b.ty != ty {
                return Err(self.unsupported(Unsupported::TensorType {
                    operand: Operand::Bias,
                    expected: expected(ty),
                }));
            }
            self.constant(&b, Operand::Bias)?;
            if channels.checked_mul(4) != Some(b.bytes) {
                return Err(self.shape(ShapeFault::Channels));
            }
        }
        Ok(())
    }

    /// The constant data of input `k` (empty: absent or not a constant).
    pub(crate) fn data(&self, k: usize) -> Result<&'m [u8], LoadError> {
        if !self.has(k) {
            return Ok(&[]);
        }
        // A constant's data as `input(k)` gives it (every check of its read made; one of
        // an empty activation is `input(k)`'s error), without copying its whole entry.
        match self.data_of(self.v.inputs[k] as usize)? {
            (d, _) if !d.is_empty() => Ok(d),
            _ => Ok(self.input(k)?.data),
        }
    }
}

/// The expected-type reason of tensor type `ty` (the types the helpers above check).
fn expected(ty: TensorType) -> TensorTypes {
    match ty {
        TensorType::Float32 => TensorTypes::Float32,
        TensorType::Int32 => TensorTypes::Int32,
        TensorType::Int16 => TensorTypes::Int16,
        _ => TensorTypes::Int8,
    }
}

/// Reads an `int32` constant into a small array (axes, paddings, permutations).
pub(crate) fn small_i32s<const N: usize>(data: &[u8]) -> Option<([i32; N], usize)> {
    let n = data.len() / 4;
    if n > N || data.len() % 4 != 0 {
        return None;
    }
    let mut out = [0i32; N];
    for (i, c) in data.chunks_exact(4).enumerate() {
        out[i] = i32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    }
    Some((out, n))
}

/// The values of a constant integer tensor's bytes `data` of type `ty` (int8, int16, int32 or
/// int64, little-endian), sign-extended to `i64`; `None` for another type. A trailing partial
/// element is not read (callers compare the count).
pub(crate) fn int_values(ty: TensorType, data: &[u8]) -> Option<impl Iterator<Item = i64> + '_> {
    let width = match ty {
        TensorType::Int8 | TensorType::Int16 | TensorType::Int32 | TensorType::Int64 => {
            element_bytes(ty)
        }
        _ => return None,
    };
    let unused = 64 - 8 * width as u32;
    Some(data.chunks_exact(width).map(move |c| {
        let mut b = [0u8; 8];
        b[..width].copy_from_slice(c);
        (i64::from_le_bytes(b) << unused) >> unused
    }))
}

/// Bytes of one element of type `t` ([`TensorType::bits`], the one size rule); 0 for a type
/// without whole-byte elements (INT4, string, resource, variant), which no kernel moves.
pub(crate) fn element_bytes(t: TensorType) -> usize {
    match t.bits() {
        Some(b) if b % 8 == 0 => (b / 8) as usize,
        _ => 0,
    }
}

#[cfg(test)]
mod seen_tests {
    use super::*;
    use crate::math::QuantParams;

    fn info(index: usize) -> TInfo<'static> {
        TInfo {
            index,
            ty: TensorType::Int8,
            dims: [1; crate::limits::MAX_DIMS],
            rank: 1,
            q: QuantParams::new(0.0, 0),
            quantized: false,
            scale_count: 0,
            quantized_dimension: 0,
            empty: false,
            data: &[],
            bytes: 1,
        }
    }

    /// `put` takes the entries in turn: the last `PREP_SEEN` tensors put are here.
    #[test]
    fn put_keeps_the_last_tensors() {
        let mut s = Seen::default();
        assert!(s.get(0).is_none());
        for t in 0..PREP_SEEN + 2 {
            s.put(info(t));
        }
        for t in 0..PREP_SEEN + 2 {
            assert_eq!(s.get(t).map(|i| i.index), (t >= 2).then_some(t), "{t}");
        }
    }
}
