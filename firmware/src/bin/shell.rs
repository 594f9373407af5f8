//! The `syn mem stats` shell on UART0: runs simulated inference jobs in a loop and, between
//! jobs, answers commands typed on the serial port (QEMU `-serial stdio`).
//!
//! ```text
//! syn mem stats   print the arena statistics table and the number of jobs run
//! syn mem reset   reset the ephemeral region and scratch pool now (counts a reset)
//! help            list the commands
//! ```
//!
//! The model and the jobs are deterministic, so a host-side test (`tests/shell_test.py`) can
//! check every printed number:
//!
//! * persistent (loaded once): weights `[16,16]` INT8 (32 + 256 B), bias `[16]` INT32
//!   (32 + 64 B), weights `[8,16]` INT8 (32 + 128 B): 544 B.
//! * shared: input `[1,16]` INT8 (32 + 16 B), output `[1,8]` INT8 (32 + 16 B): 96 B.
//! * job `k` (from 0) has batch `b = 1 + k % 3` and allocates three activations, `[b,16]`
//!   INT32, `[b,16]` INT8 and `[b,8]` INT32, and two scratch buffers of `256 * b` and 100 B;
//!   then the ephemeral region and scratch pool are reset.
#![no_std]
#![no_main]

use core::fmt::Write;

use cortex_m_rt::entry;
use panic_semihosting as _;
use synaptic_firmware::uart::Uart0;
use synaptic_firmware::StaticMem;
use synaptic_mem::{Arena, DType, Inference, Runner, Tensor};

/// Arena size (the board has 64 KB of SRAM).
const ARENA: usize = 32 * 1024;
/// Scratch pool size.
const SCRATCH: usize = 4 * 1024;

/// The arena memory.
static MEM: StaticMem<ARENA> = StaticMem::new();
/// The shared (IPC) region memory.
static IPC: StaticMem<1024> = StaticMem::new();

/// The resident model: weights in the persistent region, input/output in the shared region.
struct Model<'a> {
    w1: Tensor<'a>,
    b1: Tensor<'a>,
    w2: Tensor<'a>,
    input: Tensor<'a>,
    output: Tensor<'a>,
}

/// Runs job `k`: a two-layer integer MLP over a batch of `1 + k % 3` copies of the input.
fn run_job(runner: &mut Runner<'_>, model: &mut Model<'_>, k: u32) {
    let batch = 1 + k % 3;
    // A new input for every job.
    for (i, v) in model
        .input
        .as_mut_slice::<i8>()
        .expect("int8 input")
        .iter_mut()
        .enumerate()
    {
        *v = ((i as u32 * 7 + k) % 17) as i8 - 8;
    }
    let out = runner.inference(|inf| layers(inf, model, batch));
    model
        .output
        .as_mut_slice::<i8>()
        .expect("int8 output")
        .copy_from_slice(&out);
}

/// The job's layers; every activation and scratch buffer borrows the inference scope.
fn layers(inf: &Inference<'_>, model: &Model<'_>, batch: u32) -> [i8; 8] {
    let b = batch as usize;
    let mut acc = inf.ephemeral(&[batch, 16], DType::Int32).expect("acc");
    let mut hidden = inf.ephemeral(&[batch, 16], DType::Int8).expect("hidden");
    let mut logits = inf.ephemeral(&[batch, 8], DType::Int32).expect("logits");
    let im2col = inf.scratch(256 * b).expect("im2col");
    let tmp = inf.scratch(100).expect("tmp");
    let x = model.input.as_slice::<i8>().expect("input");
    let w1 = model.w1.as_slice::<i8>().expect("w1");
    let b1 = model.b1.as_slice::<i32>().expect("b1");
    let w2 = model.w2.as_slice::<i8>().expect("w2");
    // "im2col": the batch's inputs, replicated.
    for (i, v) in im2col.iter_mut().enumerate() {
        *v = x[i % 16] as u8;
    }
    tmp.fill(0);
    let acc = acc.as_mut_slice::<i32>().expect("acc");
    for n in 0..b {
        for o in 0..16 {
            let mut s = b1[o];
            for i in 0..16 {
                s += im2col[n * 256 + i] as i8 as i32 * w1[o * 16 + i] as i32;
            }
            acc[n * 16 + o] = s;
        }
    }
    let hidden = hidden.as_mut_slice::<i8>().expect("hidden");
    for (h, &a) in hidden.iter_mut().zip(acc.iter()) {
        *h = (a >> 4).clamp(0, 127) as i8; // ReLU + requantise
    }
    let logits = logits.as_mut_slice::<i32>().expect("logits");
    for n in 0..b {
        for o in 0..8 {
            logits[n * 8 + o] = (0..16)
                .map(|i| hidden[n * 16 + i] as i32 * w2[o * 16 + i] as i32)
                .sum();
        }
    }
    let mut out = [0i8; 8];
    for (o, v) in out.iter_mut().enumerate() {
        *v = (logits[(b - 1) * 8 + o] >> 6).clamp(-128, 127) as i8;
    }
    out
}

/// A line being typed.
struct LineBuf {
    buf: [u8; 64],
    len: usize,
    overflow: bool,
}

impl LineBuf {
    /// Adds a byte; `Some(line)` when a line ends (CR or LF). Over-long lines are flagged.
    fn push(&mut self, b: u8) -> Option<&str> {
        match b {
            b'\r' | b'\n' => {
                let n = core::mem::take(&mut self.len);
                if core::mem::take(&mut self.overflow) {
                    return Some("\u{1}");
                }
                Some(core::str::from_utf8(&self.buf[..n]).unwrap_or("\u{1}"))
            }
            0x08 | 0x7F => {
                self.len = self.len.saturating_sub(1);
                None
            }
            _ => {
                if self.len < self.buf.len() {
                    self.buf[self.len] = b;
                    self.len += 1;
                } else {
                    self.overflow = true;
                }
                None
            }
        }
    }
}

/// Handles one command line.
fn command(uart: &mut Uart0, line: &str, runner: &mut Runner<'_>, jobs: u32) {
    let words = line.split_ascii_whitespace();
    let mut argv = [""; 4];
    let mut argc = 0;
    for w in words {
        if argc < argv.len() {
            argv[argc] = w;
        }
        argc += 1;
    }
    match &argv[..argc.min(argv.len())] {
        [] => {}
        ["help"] => {
            let _ = write!(
                uart,
                "commands:\n  syn mem stats   arena statistics (the jobs keep running between commands)\n  syn mem reset   reset the ephemeral region and scratch pool now\n  help            this list\n"
            );
        }
        ["syn", "mem", "stats"] => {
            let _ = writeln!(uart, "{}jobs {}", runner.stats(), jobs);
        }
        ["syn", "mem", "reset"] => {
            // Between jobs nothing ephemeral is live: an empty inference scope is a reset.
            runner.inference(|_| ());
            let _ = writeln!(
                uart,
                "ephemeral region and scratch pool reset (resets {})",
                runner.stats().reset_count
            );
        }
        _ if line == "\u{1}" => {
            let _ = writeln!(uart, "error: line too long (64 characters at most)");
        }
        _ => {
            let _ = writeln!(
                uart,
                "error: unknown command '{}' (try 'help')",
                line.trim()
            );
        }
    }
}

/// Loads the model, then runs jobs forever, answering commands between jobs.
#[entry]
fn main() -> ! {
    let mut uart = Uart0::init();
    // SAFETY: MEM and IPC are used by this arena alone, for the whole (never-ending) program.
    let (mem, ipc) = unsafe { (MEM.get(), IPC.get()) };
    let mut arena = Arena::with_scratch(mem, SCRATCH).expect("arena");
    arena.set_shared_region(ipc).expect("shared region");
    let (loader, mut runner) = arena.split();
    let mut model = Model {
        w1: loader.persistent(&[16, 16], DType::Int8).expect("w1"),
        b1: loader.persistent(&[16], DType::Int32).expect("b1"),
        w2: loader.persistent(&[8, 16], DType::Int8).expect("w2"),
        input: loader.shared(&[1, 16], DType::Int8).expect("input"),
        output: loader.shared(&[1, 8], DType::Int8).expect("output"),
    };
    for (i, w) in model
        .w1
        .as_mut_slice::<i8>()
        .expect("w1")
        .iter_mut()
        .enumerate()
    {
        *w = (i % 5) as i8 - 2;
    }
    for (i, b) in model
        .b1
        .as_mut_slice::<i32>()
        .expect("b1")
        .iter_mut()
        .enumerate()
    {
        *b = i as i32 * 3;
    }
    for (i, w) in model
        .w2
        .as_mut_slice::<i8>()
        .expect("w2")
        .iter_mut()
        .enumerate()
    {
        *w = (i % 7) as i8 - 3;
    }
    let _ = write!(
        uart,
        "SynapticOS syn_mem shell (lm3s6965evb, Cortex-M3). Type 'help'.\nsyn> "
    );
    let mut line = LineBuf {
        buf: [0; 64],
        len: 0,
        overflow: false,
    };
    let mut jobs: u32 = 0;
    loop {
        run_job(&mut runner, &mut model, jobs);
        jobs = jobs.wrapping_add(1);
        while let Some(b) = uart.try_read_byte() {
            if let Some(cmd) = line.push(b) {
                let _ = uart.write_str("\n");
                let mut copy = [0u8; 64];
                let n = cmd.len().min(64);
                copy[..n].copy_from_slice(&cmd.as_bytes()[..n]);
                let cmd = core::str::from_utf8(&copy[..n]).unwrap_or("");
                command(&mut uart, cmd, &mut runner, jobs);
                let _ = uart.write_str("syn> ");
            } else if b != 0x08 && b != 0x7F {
                uart.write_byte(b); // echo
            }
        }
    }
}
