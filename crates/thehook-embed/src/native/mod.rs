//! A BERT encoder in plain Rust, for queries: it reads the weights straight
//! out of the model's ONNX file and needs no ONNX Runtime.
//!
//! Why: a one-shot `recall` embeds one short query. ONNX Runtime costs it
//! about 25 ms to start its environment and 20 more to build a session
//! before the first multiplication. This encoder maps the file and decodes
//! its protobuf in about 1 ms, and reads the int8 weights in place.
//!
//! It computes what ONNX Runtime computes for items: on x86-64 the int8
//! weight products in integers, as [`super::int8_products`] has ONNX
//! Runtime run them ([`integer`]), everything else in floats. A last-digit difference
//! in the floats (erf, softmax, layer norm) can move a value across a
//! quantization step, so the vectors agree closely, not exactly: median
//! cosine 0.99996, first percentile 0.9929 over 1,000 team-year texts
//! (`--example embed_rate -- --agreement`).
//!
//! Items stay on ONNX Runtime, several times as fast over many texts: 53
//! texts/s here on one thread against 280-500 items/s there on two
//! (docs/search.md, "Model and ONNX Runtime").
//!
//! Only BERT graphs whose parameters keep their exported names are
//! recognised ([`Bert::load`] says `None` otherwise); any other model runs
//! on ONNX Runtime as before.

mod integer;
mod math;
mod weights;

use std::path::Path;

use math::Linear;
use weights::{Matrix, Weights};

/// A loaded encoder.
pub(crate) struct Bert {
    words: Matrix,
    positions: Matrix,
    token_types: Matrix,
    embedding_norm: Norm,
    layers: Vec<Layer>,
    heads: usize,
    eps: f32,
}

struct Norm {
    scale: Vec<f32>,
    bias: Vec<f32>,
}

struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: Norm,
    intermediate: Linear,
    output: Linear,
    output_norm: Norm,
}

/// The few settings read from the model's `config.json`.
#[derive(serde::Deserialize)]
struct Config {
    model_type: String,
    num_attention_heads: usize,
    #[serde(default = "default_eps")]
    layer_norm_eps: f32,
    #[serde(default = "default_act")]
    hidden_act: String,
    #[serde(default = "default_position_embedding_type")]
    position_embedding_type: String,
}

fn default_eps() -> f32 {
    1e-12
}
fn default_act() -> String {
    "gelu".into()
}
fn default_position_embedding_type() -> String {
    "absolute".into()
}

/// The model's `config.json` when it describes a BERT this encoder runs
/// (`None` for any other model, or an unreadable file).
fn known_config(dir: &Path) -> Option<Config> {
    let config: Config =
        serde_json::from_slice(&std::fs::read(dir.join("config.json")).ok()?).ok()?;
    (config.model_type == "bert"
        && config.hidden_act == "gelu"
        && config.position_embedding_type == "absolute")
        .then_some(config)
}

/// Whether the model in `dir` is one this encoder runs, by its
/// `config.json` alone (cheap enough for every command's model lookup).
pub(crate) fn runs(dir: &Path) -> bool {
    known_config(dir).is_some()
}

impl Bert {
    /// Reads the encoder in `dir` (`model.onnx`, `config.json`); `None`
    /// when the files are unreadable or the model is not a BERT this
    /// encoder knows, and the caller uses ONNX Runtime instead.
    pub(crate) fn load(dir: &Path) -> Option<Bert> {
        let config = known_config(dir)?;
        let file = std::fs::File::open(dir.join("model.onnx")).ok()?;
        // SAFETY: model files are replaced by a rename, never changed in
        // place, so the mapped bytes stay what they were.
        let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
        let graph = Weights::decode(bytes::Bytes::from_owner(map))?;
        let p = graph.prefix()?;
        let norm = |name: &str| -> Option<Norm> {
            Some(Norm {
                scale: graph.vector(&format!("{p}{name}.weight"))?,
                bias: graph.vector(&format!("{p}{name}.bias"))?,
            })
        };
        let linear = |name: &str| -> Option<Linear> {
            let bias_name = format!("{p}{name}.bias");
            let weight = graph.weight_before(&bias_name)?;
            let bias = graph.vector(&bias_name)?;
            (bias.len() == weight.cols).then_some(Linear { weight, bias })
        };
        let mut layers = Vec::new();
        loop {
            let l = format!("encoder.layer.{}.", layers.len());
            if graph
                .vector(&format!("{p}{l}attention.self.query.bias"))
                .is_none()
            {
                break;
            }
            layers.push(Layer {
                query: linear(&format!("{l}attention.self.query"))?,
                key: linear(&format!("{l}attention.self.key"))?,
                value: linear(&format!("{l}attention.self.value"))?,
                attention_out: linear(&format!("{l}attention.output.dense"))?,
                attention_norm: norm(&format!("{l}attention.output.LayerNorm"))?,
                intermediate: linear(&format!("{l}intermediate.dense"))?,
                output: linear(&format!("{l}output.dense"))?,
                output_norm: norm(&format!("{l}output.LayerNorm"))?,
            });
        }
        let bert = Bert {
            words: graph.matrix(&format!("{p}embeddings.word_embeddings.weight"))?,
            positions: graph.matrix(&format!("{p}embeddings.position_embeddings.weight"))?,
            token_types: graph.matrix(&format!("{p}embeddings.token_type_embeddings.weight"))?,
            embedding_norm: norm("embeddings.LayerNorm")?,
            layers,
            heads: config.num_attention_heads,
            eps: config.layer_norm_eps,
        };
        bert.is_consistent().then_some(bert)
    }

    /// Every shape agrees with the embedding width, so `forward` cannot
    /// index out of bounds.
    fn is_consistent(&self) -> bool {
        let width = self.words.cols;
        let square = |l: &Linear| l.inputs() == width && l.outputs() == width;
        let normed = |n: &Norm| n.scale.len() == width && n.bias.len() == width;
        !self.layers.is_empty()
            && self.heads > 0
            && width.is_multiple_of(self.heads)
            && self.positions.cols == width
            && self.token_types.cols == width
            && normed(&self.embedding_norm)
            && self.layers.iter().all(|l| {
                square(&l.query)
                    && square(&l.key)
                    && square(&l.value)
                    && square(&l.attention_out)
                    && normed(&l.attention_norm)
                    && normed(&l.output_norm)
                    && l.intermediate.inputs() == width
                    && l.output.inputs() == l.intermediate.outputs()
                    && l.output.outputs() == width
            })
    }

    /// The width of a token vector (384 for all-MiniLM-L6-v2).
    pub(crate) fn width(&self) -> usize {
        self.words.cols
    }

    /// The last hidden state, `[tokens, width]` row-major, for one text's
    /// token ids (at most the model's position count: the tokenizer cuts
    /// texts at 256).
    pub(crate) fn forward(&self, ids: &[u32], type_ids: &[u32]) -> Option<Vec<f32>> {
        let tokens = ids.len();
        let width = self.words.cols;
        let fits = |m: &Matrix, i: u32| (i as usize) < m.rows;
        if tokens == 0
            || tokens > self.positions.rows
            || !ids.iter().all(|&i| fits(&self.words, i))
            || !type_ids.iter().all(|&i| fits(&self.token_types, i))
        {
            return None;
        }
        let mut h = Vec::with_capacity(tokens * width);
        for (t, &id) in ids.iter().enumerate() {
            let mut row = self.words.row(id as usize);
            math::add_in_place(&mut row, &self.positions.row(t));
            let token_type = type_ids.get(t).copied().unwrap_or(0) as usize;
            math::add_in_place(&mut row, &self.token_types.row(token_type));
            h.extend(row);
        }
        let norm =
            |x: &mut [f32], n: &Norm| math::layer_norm(x, width, &n.scale, &n.bias, self.eps);
        norm(&mut h, &self.embedding_norm);
        for layer in &self.layers {
            let q = layer.query.forward(&h, tokens);
            let k = layer.key.forward(&h, tokens);
            let v = layer.value.forward(&h, tokens);
            let context = math::attention(&q, &k, &v, tokens, self.heads);
            let mut attended = layer.attention_out.forward(&context, tokens);
            math::add_in_place(&mut attended, &h);
            norm(&mut attended, &layer.attention_norm);
            let mut inner = layer.intermediate.forward(&attended, tokens);
            math::gelu_in_place(&mut inner);
            h = layer.output.forward(&inner, tokens);
            math::add_in_place(&mut h, &attended);
            norm(&mut h, &layer.output_norm);
        }
        Some(h)
    }
}

#[cfg(test)]
mod tests {
    use super::Bert;

    const MINILM_CONFIG: &str = r#"{"model_type": "bert", "num_attention_heads": 12,
        "hidden_act": "gelu", "layer_norm_eps": 1e-12}"#;

    /// A model folder with these two files.
    fn folder(config: &str, model: &[u8]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("config.json"), config).unwrap();
        std::fs::write(dir.path().join("model.onnx"), model).unwrap();
        dir
    }

    #[test]
    fn a_model_it_does_not_know_is_left_to_onnx_runtime() {
        let roberta = MINILM_CONFIG.replace("bert", "roberta");
        assert!(Bert::load(folder(&roberta, b"").path()).is_none());
        // Not protobuf, cut short, or a graph without BERT's parameter names.
        assert!(Bert::load(folder(MINILM_CONFIG, b"\xff\xff\xff").path()).is_none());
        assert!(Bert::load(folder(MINILM_CONFIG, b"").path()).is_none());
        assert!(Bert::load(folder("not json", b"").path()).is_none());
        assert!(Bert::load(std::path::Path::new("/nonexistent")).is_none());
    }

    #[test]
    #[cfg_attr(
        not(feature = "model"),
        ignore = "needs the embedding model: scripts/test.sh"
    )]
    fn the_shipped_model_is_read_with_its_six_layers_and_refuses_what_it_cannot_embed() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.assets/model");
        let bert = Bert::load(&dir).expect("all-MiniLM-L6-v2 is a BERT this encoder knows");
        assert_eq!((bert.layers.len(), bert.width(), bert.heads), (6, 384, 12));
        let hidden = bert.forward(&[101, 7592, 102], &[0, 0, 0]).unwrap();
        assert_eq!(hidden.len(), 3 * 384);
        assert!(hidden.iter().all(|v| v.is_finite()));
        assert!(bert.forward(&[], &[]).is_none(), "no tokens");
        assert!(
            bert.forward(&[40_000], &[0]).is_none(),
            "an id past the vocabulary"
        );
        assert!(
            bert.forward(&vec![101; 513], &[0; 513]).is_none(),
            "past 512 positions"
        );
    }
}
