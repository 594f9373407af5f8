//! The last error of the `syn_run_*` calls: a negative errno (the codes and the core-error
//! mapping of [`synaptic_mem_ffi::errno`], the one rule for both C APIs) and a one-line message,
//! and how the runtime's errors map to them.

use core::cell::Cell;
use core::ffi::c_int;
use core::fmt::{self, Write};

use critical_section::Mutex;
use synaptic_mem::PlanLoadError;
use synaptic_mem_ffi::errno::{self, EAGAIN, EINVAL, ENOMEM, ENOTSUP};
use synaptic_run::{KernelError, LoadError, RunError};

use crate::types::SYN_RUN_MESSAGE_MAX;

/// A failure: its negative errno. Its message was formatted once, when it was made
/// ([`Failure::new`]), straight into the last-error record ([`last`]): a failure is a word on
/// the stack of every call it passes through, not a message buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Failure {
    /// The negative errno.
    pub errno: c_int,
}

/// The last error of any `syn_run_*` call: its errno and message.
#[derive(Clone, Copy)]
pub struct Message {
    /// The negative errno (0: no failure yet).
    pub errno: c_int,
    /// Message bytes (UTF-8, truncated at a character boundary).
    pub msg: [u8; SYN_RUN_MESSAGE_MAX],
    /// Bytes of `msg` used.
    pub len: usize,
}

/// The last failure of any `syn_run_*` call (global, not per thread or model).
static LAST: Mutex<Cell<Message>> = Mutex::new(Cell::new(Message::NONE));

/// The last error recorded ([`Message::NONE`] if none yet).
pub fn last() -> Message {
    critical_section::with(|cs| LAST.borrow(cs).get())
}

impl Failure {
    /// A failure with `errno` and the message `args` (truncated to [`SYN_RUN_MESSAGE_MAX`]),
    /// recorded as the last error now. Make one only to return it: a call that fails returns
    /// the failure it made (no failure is made and then dropped).
    #[cfg(not(feature = "strip-error-strings"))]
    #[cold]
    #[inline(never)]
    pub fn new(errno: c_int, args: fmt::Arguments<'_>) -> Failure {
        // A full buffer only truncates: the writer never fails.
        Failure::recorded(errno, |m| {
            let _ = m.write_fmt(args);
        })
    }

    /// With the feature `strip-error-strings`: `errno` recorded with [`STRIPPED`] as its
    /// message, `args` never formatted (inlined: the arguments are not even made, so no
    /// `Display` of an error is linked).
    #[cfg(feature = "strip-error-strings")]
    #[inline(always)]
    pub fn new(errno: c_int, _args: fmt::Arguments<'_>) -> Failure {
        Failure::stripped(errno)
    }

    /// [`Failure::new`] without its message (`strip-error-strings`).
    #[cfg(feature = "strip-error-strings")]
    #[cold]
    #[inline(never)]
    fn stripped(errno: c_int) -> Failure {
        Failure::recorded(errno, |m| {
            let _ = m.write_str(STRIPPED);
        })
    }

    /// `errno` with the message `write` puts in, recorded as the last error now.
    #[inline(always)]
    fn recorded(errno: c_int, write: impl FnOnce(&mut Message)) -> Failure {
        let mut m = Message {
            errno,
            ..Message::NONE
        };
        write(&mut m);
        critical_section::with(|cs| LAST.borrow(cs).set(m));
        Failure { errno }
    }
}

/// The message of every failure in a library built with `strip-error-strings`.
#[cfg(feature = "strip-error-strings")]
pub const STRIPPED: &str = "error strings stripped (strip-error-strings): see the errno";

impl Message {
    /// No failure yet.
    pub const NONE: Message = Message {
        errno: 0,
        msg: [0; SYN_RUN_MESSAGE_MAX],
        len: 0,
    };

    /// The message text.
    pub fn message(&self) -> &[u8] {
        &self.msg[..self.len]
    }
}

impl Write for Message {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = SYN_RUN_MESSAGE_MAX - self.len;
        let mut n = s.len().min(room);
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        self.msg[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

/// `-EINVAL` with a message.
pub fn invalid(what: &str) -> Failure {
    Failure::new(-EINVAL, format_args!("{what}"))
}

/// A load failure: the runtime's [`LoadError`], mapped to an errno, its `Display` as message.
pub fn load(e: &LoadError) -> Failure {
    let err = match e {
        LoadError::Model(_) => -EINVAL,
        LoadError::Unsupported { .. } => -ENOTSUP,
        LoadError::Operator { error, .. } => match error {
            KernelError::Unsupported { .. } => -ENOTSUP,
            KernelError::Shape { .. } | KernelError::Length { .. } | KernelError::Abort { .. } => {
                -EINVAL
            }
        },
        LoadError::CustomOperator { .. } => -ENOTSUP,
        LoadError::Plan { .. } => -EINVAL,
        LoadError::Alloc(a) => errno::from_kind(a.kind),
        LoadError::PlanLoad(PlanLoadError::Invalid(_)) => -EINVAL,
        LoadError::PlanLoad(PlanLoadError::Alloc(a)) => errno::from_kind(a.kind),
        // A program (syn_run_config_t.program) that is not what this model and placement
        // compile to: of another model or placement, truncated, extended or altered (its seal
        // differs). The message names what differs and the word.
        LoadError::Program { .. } => -EINVAL,
        // A buffer too small for a compiled program: it does not fit (not reached through this
        // API, which compiles into an exactly sized tensor, but mapped like every other).
        LoadError::ProgramBuffer { .. } => -ENOMEM,
        // The arena lacks bytes; the message says which size to give.
        LoadError::ArenaTooSmall { .. } => -ENOMEM,
        // A value or a data flow the runtime refuses: a malformed model.
        LoadError::Tensor { .. } | LoadError::Graph { .. } => -EINVAL,
    };
    Failure::new(err, format_args!("load: {e}"))
}

/// An inference failure ([`RunError`]).
pub fn run(e: &RunError) -> Failure {
    let err = match e {
        RunError::Alloc(a) => errno::from_kind(a.kind),
        // Not a failure: the graph stopped early as an operator asked (try again next time).
        RunError::Aborted { .. } => -EAGAIN,
        RunError::Kernel { .. }
        | RunError::Model(_)
        | RunError::Program { .. }
        | RunError::Io { .. } => -EINVAL,
    };
    Failure::new(err, format_args!("invoke: {e}"))
}

/// An arena or shared-region set-up failure.
pub fn config(e: synaptic_mem::ConfigError) -> Failure {
    Failure::new(errno::from_config(e), format_args!("load: {e}"))
}
