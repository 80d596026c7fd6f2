//! End-to-end training behaviour: the loss goes down, and runs are reproducible.

use tiny_transformer::{Batch, Config, Model};

/// Mean loss over a few held-out batches (step indices never used for training).
fn eval_loss(model: &mut Model, cfg: &Config) -> f32 {
    let batches: Vec<Batch> = (0..4)
        .map(|i| Batch::generate(cfg, 1_000_000 + i))
        .collect();
    batches.iter().map(|b| model.forward_loss(b)).sum::<f32>() / batches.len() as f32
}

/// Trains `steps` steps and returns (held-out loss before, after, training losses).
fn train(cfg: &Config, steps: u64) -> (f32, f32, Vec<f32>) {
    let mut model = Model::new(cfg);
    let before = eval_loss(&mut model, cfg);
    let losses = (0..steps)
        .map(|step| model.train_step(&Batch::generate(cfg, step)))
        .collect();
    (before, eval_loss(&mut model, cfg), losses)
}

/// A configuration small enough to train 40 steps in about a second in a debug build.
fn small_config() -> Config {
    Config {
        vocab: 16,
        d_model: 16,
        n_layers: 1,
        n_heads: 2,
        d_ff: 32,
        seq_len: 16,
        batch: 4,
        lr: 1e-2,
        seed: 3,
    }
}

#[test]
#[cfg_attr(debug_assertions, ignore = "slow in debug builds; run with --release")]
fn default_config_loss_drops_by_30_percent_in_40_steps() {
    let cfg = Config::default();
    let (before, after, losses) = train(&cfg, 40);
    println!("default: held-out loss {before:.4} -> {after:.4}; train {losses:.3?}");
    assert!(
        (before - (cfg.vocab as f32).ln()).abs() < 0.1,
        "initial loss {before}"
    );
    assert!(
        after <= 0.7 * before,
        "loss {before} -> {after}: less than a 30 % drop"
    );
    assert!(
        after < 2.5,
        "held-out loss {after} not below 2.5 after 40 steps"
    );
}

#[test]
fn small_config_loss_drops_by_30_percent_in_40_steps() {
    let cfg = small_config();
    let (before, after, losses) = train(&cfg, 40);
    println!("small: held-out loss {before:.4} -> {after:.4}; train {losses:.3?}");
    assert!(
        after <= 0.7 * before,
        "loss {before} -> {after}: less than a 30 % drop"
    );
}

#[test]
fn same_seed_gives_identical_loss_sequence() {
    let cfg = small_config();
    let bits = |losses: Vec<f32>| losses.iter().map(|l| l.to_bits()).collect::<Vec<u32>>();
    let (_, _, a) = train(&cfg, 8);
    let (_, _, b) = train(&cfg, 8);
    assert_eq!(
        bits(a.clone()),
        bits(b),
        "same seed must reproduce bit-identical losses"
    );
    // Guard against a vacuous pass: another seed must give a different sequence.
    let (_, _, c) = train(&Config { seed: 4, ..cfg }, 8);
    assert_ne!(
        bits(a),
        bits(c),
        "different seeds should give different losses"
    );
}
