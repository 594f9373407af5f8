//! `synmem plan`: the RAM synaptic-run needs (the one RAM figure, first), then every region of
//! the bare allocator, the plan and the check of an arena configuration; the report as text or
//! JSON, the plan optionally drawn as SVG, exit 3 with `--check` when the model does not fit
//! (the runtime's arena over the core's limit, or a bare-allocator configuration named with
//! `--arena`/`--scratch`/`--weights`/`--scratch-table` too small).

use crate::args::SizingArgs;
use crate::common::{analyse, print_json, write_file, Failure};
use std::path::Path;
use synaptic_plan::render::plan_text;

/// Runs `synmem plan MODEL [sizing options] [--json] [--svg FILE] [--check]`, reading files of
/// at most `max` bytes.
pub(crate) fn run(
    model: &Path,
    sizing: &SizingArgs,
    json: bool,
    svg: Option<&Path>,
    check: bool,
    max: u64,
) -> Result<u8, Failure> {
    let a = analyse(model, sizing, max)?;
    if let Some(path) = svg {
        write_file(path, synaptic_plan::svg::render(&a))?;
    }
    if json {
        print_json(&a.report)?;
    } else {
        print!("{}", plan_text(&a));
        if let Some(path) = svg {
            println!("plan drawn to {}", path.display());
        }
    }
    // --check: the runtime's arena within the core's limit, and the bare allocator's
    // configuration when the command line names one.
    let fits = a.report.ram.fits && (a.report.fits || !sizing.names_allocator());
    Ok(if check && !fits { 3 } else { 0 })
}
