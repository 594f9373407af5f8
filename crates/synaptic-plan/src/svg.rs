//! The plan as an SVG picture: operators on the x axis, memory offset on the y axis, one
//! rectangle per tensor, the live-set lower bound as a dashed line.

use crate::analysis::Analysis;
use crate::text::printable;
use std::fmt::Write;

/// Text for an SVG (XML 1.0) document: markup characters as entities, and control characters,
/// which XML 1.0 does not allow even as character references, as visible escapes
/// ([`printable`]).
fn esc(s: &str) -> String {
    printable(s)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Draws `analysis`'s plan of all activations as a standalone SVG document.
///
/// ```no_run
/// # let analysis: synaptic_plan::Analysis = unimplemented!();
/// let svg = synaptic_plan::svg::render(&analysis);
/// std::fs::write("plan.svg", svg)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn render(analysis: &Analysis) -> String {
    let plan = &analysis.activation_plan;
    let r = &analysis.report;
    let ops = analysis.model.operators.len().max(1);
    let (w, h) = (960.0f64, 540.0f64);
    let (left, right, top, bottom) = (90.0, 20.0, 50.0, 50.0);
    let pw = w - left - right;
    let ph = h - top - bottom;
    let ymax = plan.region_size.max(plan.lower_bound).max(16) as f64;
    let x_of = |op: usize| left + pw * op as f64 / ops as f64;
    let y_of = |off: f64| top + ph - ph * off / ymax;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="20" font-size="14" font-weight="bold">{}: {} activations, planned {} B, live lower bound {} B{}{}</text>"#,
        esc(&r.model),
        plan.items.len(),
        plan.region_size,
        r.live_lower_bound_bytes,
        if r.overlap {
            format!(", overlap lower bound {} B", plan.lower_bound)
        } else {
            String::new()
        },
        if plan.proven_optimal {
            " (optimal)"
        } else {
            ""
        }
    );
    // Axes.
    let _ = writeln!(
        s,
        r#"<line x1="{left}" y1="{}" x2="{}" y2="{}" stroke="black"/>"#,
        top + ph,
        left + pw,
        top + ph
    );
    let _ = writeln!(
        s,
        r#"<line x1="{left}" y1="{top}" x2="{left}" y2="{}" stroke="black"/>"#,
        top + ph
    );
    let step = (ops / 16).max(1);
    for op in (0..=ops).step_by(step) {
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{}" text-anchor="middle">{op}</text>"#,
            x_of(op),
            top + ph + 16.0
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{}" text-anchor="middle">operator (execution order)</text>"#,
        left + pw / 2.0,
        h - 10.0
    );
    for k in 0..=4 {
        let off = ymax * k as f64 / 4.0;
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{:.1}" text-anchor="end">{:.0}</text>"#,
            left - 6.0,
            y_of(off) + 4.0,
            off
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="16" y="{:.1}" transform="rotate(-90 16 {:.1})" text-anchor="middle">offset (bytes)</text>"#,
        top + ph / 2.0,
        top + ph / 2.0
    );
    // Tensors.
    for (k, (it, &off)) in plan.items.iter().zip(&plan.offsets).enumerate() {
        let t = analysis.lifetimes[k].tensor;
        let name = &analysis.model.tensors[t].name;
        let x0 = x_of(it.first_op);
        let x1 = x_of(it.last_op + 1);
        let y0 = y_of((off + it.span()) as f64);
        let y1 = y_of(off as f64);
        let hue = (k * 47) % 360;
        let _ = writeln!(
            s,
            r#"<rect x="{x0:.1}" y="{y0:.1}" width="{:.1}" height="{:.1}" fill="hsl({hue},60%,70%)" stroke="black" stroke-width="0.5"><title>tensor {t} {}: {} B at offset {off}, ops {}..={}</title></rect>"#,
            (x1 - x0).max(1.0),
            (y1 - y0).max(0.5),
            esc(name),
            it.bytes,
            it.first_op,
            it.last_op
        );
        if y1 - y0 > 14.0 && x1 - x0 > 24.0 {
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" font-size="10">t{t}</text>"#,
                x0 + 3.0,
                y0 + 12.0
            );
        }
    }
    // Lower bound.
    let yl = y_of(plan.lower_bound as f64);
    let _ = writeln!(
        s,
        r#"<line x1="{left}" y1="{yl:.1}" x2="{}" y2="{yl:.1}" stroke="red" stroke-dasharray="6,4"/>"#,
        left + pw
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{:.1}" fill="red" text-anchor="end">{} lower bound {} B</text>"#,
        left + pw,
        yl - 4.0,
        if r.overlap { "overlap" } else { "live" },
        plan.lower_bound
    );
    s.push_str("</svg>\n");
    s
}
