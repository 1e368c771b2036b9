//! The model that embeds queries, loaded once per process, and able to load
//! on another thread while the index is synced and searched lexically: a
//! one-shot `recall` then waits for the model only as long as loading it
//! takes more than the rest.

use std::thread::JoinHandle;

use crate::error::{Error, Result};
use crate::model::{self, Availability, Embedder, Workload};

/// ONNX Runtime's threads, when it embeds the queries (a model the built-in
/// encoder does not know): 2.0 ms a query against 2.9 with one (10,000-item
/// bench, a 2-core machine). The built-in encoder runs on the calling thread.
const QUERY_THREADS: usize = 2;

#[derive(Default)]
pub(crate) struct QueryModel {
    state: State,
}

#[derive(Default)]
enum State {
    #[default]
    Unloaded,
    /// Loading the model and embedding `query` on another thread.
    Loading {
        query: String,
        thread: JoinHandle<Result<(Embedder, Vec<f32>)>>,
    },
    /// Boxed: the tokenizer alone is over a kilobyte.
    Loaded(Box<Embedder>),
}

impl QueryModel {
    /// Starts loading the model and embedding `query` on another thread,
    /// unless the model is loaded or missing.
    pub(crate) fn start(&mut self, availability: &Availability, query: &str) {
        if !matches!(self.state, State::Unloaded)
            || !matches!(availability, Availability::Ready { .. })
        {
            return;
        }
        let availability = availability.clone();
        let query = query.to_string();
        let text = query.clone();
        let spawned = std::thread::Builder::new()
            .name("thehook-query-model".into())
            .spawn(move || {
                let mut embedder = model::load(&availability, QUERY_THREADS, Workload::Query)?;
                let vector = embedder.embed_one(&text)?;
                Ok((embedder, vector))
            });
        // Without a thread, the model loads when the vector is asked for.
        if let Ok(thread) = spawned {
            self.state = State::Loading { query, thread };
        }
    }

    /// The embedding of `query`, or `None` without a model.
    pub(crate) fn embed(
        &mut self,
        availability: &Availability,
        query: &str,
    ) -> Result<Option<Vec<f32>>> {
        if !matches!(availability, Availability::Ready { .. }) {
            return Ok(None);
        }
        match std::mem::take(&mut self.state) {
            State::Loading {
                query: started,
                thread,
            } => {
                let (embedder, vector) = thread.join().map_err(|_| Error::Model {
                    problem: "loading the embedding model crashed".into(),
                    source: None,
                    fix: crate::error::Step::Doctor.into(),
                })??;
                self.state = State::Loaded(Box::new(embedder));
                if started == query {
                    return Ok(Some(vector));
                }
            }
            State::Loaded(embedder) => self.state = State::Loaded(embedder),
            State::Unloaded => {
                let embedder = model::load(availability, QUERY_THREADS, Workload::Query)?;
                self.state = State::Loaded(Box::new(embedder));
            }
        }
        let State::Loaded(embedder) = &mut self.state else {
            unreachable!("loaded above")
        };
        Ok(Some(embedder.embed_one(query)?))
    }

    /// Drops the model (after it failed: the process goes on lexical-only).
    pub(crate) fn unload(&mut self) {
        self.state = State::Unloaded;
    }
}
