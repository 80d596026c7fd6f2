//! The per-layer and per-op breakdown of a scorecard: layer summaries
//! (bwd/fwd ratio, top op), the mean ratio and the hotspot ops; and the
//! sanitiser that reads non-finite inputs as 0 and says so, so no output
//! field is ever NaN.

use std::collections::BTreeMap;

use super::model::LayerSummary;
use super::view::RunView;

/// Adds times without overflowing to infinity (absurd inputs stay finite).
pub(crate) fn add_ms(total: f64, ms: f64) -> f64 {
    (total + ms).min(f64::MAX)
}

/// Reads non-finite values as 0, noting each one.
#[derive(Default)]
pub(crate) struct Sanitizer {
    pub(crate) warnings: Vec<String>,
}

impl Sanitizer {
    pub(crate) fn finite(&mut self, what: &str, x: f64) -> f64 {
        if x.is_finite() {
            x
        } else {
            self.warnings.push(format!("{what} is {x}; read as 0"));
            0.0
        }
    }

    pub(crate) fn non_negative(&mut self, what: &str, x: f64) -> f64 {
        let x = self.finite(what, x);
        if x < 0.0 {
            self.warnings
                .push(format!("{what} is negative ({x}); read as 0"));
            0.0
        } else {
            x
        }
    }
}

/// Per-layer summaries (with the layer's host memory when it was tracked),
/// the mean bwd/fwd ratio, and op totals over layers and top-level ops.
pub(crate) fn layer_summaries(
    run: &RunView,
    s: &mut Sanitizer,
) -> (f64, Vec<LayerSummary>, BTreeMap<String, f64>) {
    let mut op_totals: BTreeMap<String, f64> = BTreeMap::new();
    let (mut ratio_sum, mut ratio_count) = (0.0, 0usize);
    let mut summaries = Vec::with_capacity(run.layers.len());
    for layer in &run.layers {
        let before = s.warnings.len();
        let fwd_ms = s.non_negative(&format!("layer {} fwd_ms", layer.layer), layer.fwd_ms);
        let bwd_ms = s.non_negative(&format!("layer {} bwd_ms", layer.layer), layer.bwd_ms);
        let ratio = if fwd_ms > 0.0 {
            s.finite(
                &format!("layer {} bwd/fwd ratio", layer.layer),
                bwd_ms / fwd_ms,
            )
        } else {
            0.0
        };
        let mut top: Option<(&str, f64)> = None;
        let mut layer_total = 0.0;
        for (name, ms) in &layer.ops {
            let ms = s.non_negative(&format!("layer {} op `{name}`", layer.layer), *ms);
            let total = op_totals.entry(name.clone()).or_default();
            *total = add_ms(*total, ms);
            layer_total = add_ms(layer_total, ms);
            // `>=`: on ties the last op in name order wins, as in the v1 rules.
            if top.is_none_or(|(_, best)| ms >= best) {
                top = Some((name, ms));
            }
        }
        let (top_op, top_ms) = top.map_or((String::new(), 0.0), |(n, ms)| (n.to_owned(), ms));
        let memory = run
            .recorded
            .as_ref()
            .and_then(|r| r.layer_memory.get(&layer.layer));
        if ratio > 0.0 && bwd_ms > 0.0 {
            ratio_sum = add_ms(ratio_sum, ratio);
            ratio_count += 1;
        }
        summaries.push(LayerSummary {
            layer: layer.layer,
            fwd_ms,
            bwd_ms,
            ratio,
            top_op,
            top_op_pct: if layer_total > 0.0 {
                top_ms / layer_total * 100.0
            } else {
                0.0
            },
            non_finite: s.warnings.len() > before,
            allocated_bytes: memory.map(|m| m.allocated),
            peak_bytes: memory.map(|m| m.peak),
        });
    }
    for (name, ms) in &run.ops {
        let ms = s.non_negative(&format!("op `{name}`"), *ms);
        let total = op_totals.entry(name.clone()).or_default();
        *total = add_ms(*total, ms);
    }
    let avg_ratio = if ratio_count > 0 {
        ratio_sum / ratio_count as f64
    } else {
        0.0
    };
    (avg_ratio, summaries, op_totals)
}

/// Top `count` ops by time as `(name, ms, % of all op time)`; ties keep name order.
pub(crate) fn hotspots(op_totals: BTreeMap<String, f64>, count: usize) -> Vec<(String, f64, f64)> {
    let total = op_totals.values().fold(0.0, |acc, &ms| add_ms(acc, ms));
    let mut ops: Vec<(String, f64, f64)> = op_totals
        .into_iter()
        .map(|(name, ms)| {
            let pct = if total > 0.0 { ms / total * 100.0 } else { 0.0 };
            (name, ms, pct)
        })
        .collect();
    ops.sort_by(|a, b| b.1.total_cmp(&a.1));
    ops.truncate(count);
    ops
}

#[cfg(test)]
mod tests {
    use crate::model::step::{PerLayerData, StepProfilerInput};

    #[test]
    fn layer_ratio_top_op_and_average() {
        let mut a = PerLayerData {
            layer: 0,
            fwd_ms: 2.0,
            bwd_ms: 4.0,
            ..Default::default()
        };
        a.ops.insert("gemm".into(), 3.0);
        a.ops.insert("norm".into(), 1.0);
        let b = PerLayerData {
            layer: 1,
            fwd_ms: 2.0,
            bwd_ms: 0.0,
            ..Default::default()
        };
        let c = PerLayerData {
            layer: 2,
            fwd_ms: 0.0,
            bwd_ms: 5.0,
            ..Default::default()
        };
        let input = StepProfilerInput {
            per_layer: vec![a, b, c],
            ..Default::default()
        };
        let sc = crate::analysis::scorecard::compute_training_scorecard(
            &input,
            1.0,
            &crate::hardware::preset("gb10").unwrap(),
            None,
        );
        assert_eq!(sc.per_layer_summary[0].ratio, 2.0);
        assert_eq!(sc.per_layer_summary[0].top_op, "gemm");
        assert_eq!(sc.per_layer_summary[0].top_op_pct, 75.0);
        assert_eq!(sc.per_layer_summary[2].ratio, 0.0);
        // Only layer 0 has ratio > 0 and bwd > 0.
        assert_eq!(sc.forward_backward_ratio, 2.0);
        assert_eq!(sc.hotspot_ops[0], ("gemm".to_owned(), 3.0, 75.0));
    }
}
