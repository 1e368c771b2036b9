//! One shape for every Promise: the work runs on libuv's thread pool inside
//! `catch_unwind` (a panic in an async task would otherwise abort Node), and
//! a failure rejects with a JS `Error` whose `code` is the core's.

use napi::bindgen_prelude::JsObjectValue;
use napi::bindgen_prelude::{ToNapiValue, TypeName};
use napi::{Env, JsValue, Task};

/// Why a call failed: the stable code and the message (with its fix).
pub struct Failure {
    pub code: String,
    pub message: String,
}

impl Failure {
    pub fn usage(message: String) -> Failure {
        Failure {
            code: "THEHOOK_USAGE".into(),
            message,
        }
    }
}

impl From<thehook_core::Error> for Failure {
    fn from(e: thehook_core::Error) -> Failure {
        Failure {
            code: e.code().as_str().into(),
            message: e.in_words_of(thehook_core::error::Words::Node).to_string(),
        }
    }
}

type Work<T> = Box<dyn FnOnce() -> Result<T, Failure> + Send>;

pub struct CoreTask<T> {
    work: Option<Work<T>>,
}

impl<T> CoreTask<T> {
    pub fn new(work: impl FnOnce() -> Result<T, Failure> + Send + 'static) -> Self {
        CoreTask {
            work: Some(Box::new(work)),
        }
    }
}

impl<T: ToNapiValue + TypeName + Send + 'static> Task for CoreTask<T> {
    type Output = Result<T, Failure>;
    type JsValue = T;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        let work = self.work.take().expect("a task runs once");
        Ok(
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)) {
                Ok(result) => result,
                Err(panic) => Err(Failure {
                    code: "THEHOOK_PANIC".into(),
                    message: format!(
                        "thehook panicked: {}; please report it",
                        thehook_core::error::panic_message(panic.as_ref())
                    ),
                }),
            },
        )
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<T> {
        match output {
            Ok(value) => Ok(value),
            Err(failure) => {
                let mut error = env.create_error(napi::Error::from_reason(failure.message))?;
                error.set_named_property("code", failure.code)?;
                Err(napi::Error::from(error.to_unknown()))
            }
        }
    }
}
