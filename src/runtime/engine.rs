//! The engine: configuration, the code generator for the host, and the
//! caches every store and module of it share.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::environ::config::{BoundsChecks, Config};
use crate::environ::error::{Error, Result};
use crate::environ::type_registry::TypeRegistry;
use crate::environ::types::{FuncType, ValType};
use crate::runtime::vm::code_memory::CodeMemory;
use crate::runtime::vm::interrupt::EpochWatch;
use crate::runtime::vm::memory_pool::MemoryPool;
use crate::runtime::vm::profiling;
use crate::runtime::vm::{arch, signals};

/// A compilation environment. Cheap to clone (a reference count); modules
/// and stores keep their engine alive.
#[derive(Clone)]
pub struct Engine {
    inner: Arc<EngineInner>,
}

/// The parameter and result types of a C function called natively.
type NativeSignature = (Vec<ValType>, Vec<ValType>);

struct EngineInner {
    config: Config,
    /// The code generator for this host (`codegen.rs`).
    #[cfg(feature = "compiler")]
    isa: cranelift_codegen::isa::OwnedTargetIsa,
    /// Wasm→host trampolines by signature, compiled on first use or taken
    /// from compiled-code files: the code and the trampoline's offset in it.
    exit_trampolines: Mutex<HashMap<FuncType, (Arc<CodeMemory>, usize)>>,
    /// Host→C trampolines by (parameters, results), compiled on first use.
    native_trampolines: Mutex<HashMap<NativeSignature, Arc<CodeMemory>>>,
    /// Released memory reservations, for reuse.
    memory_pool: Arc<MemoryPool>,
    /// The canonical ids of the types its modules and host functions use.
    types: Arc<TypeRegistry>,
    /// The epoch that stores' deadlines refer to.
    epoch: AtomicU64,
    /// The stores with a deadline, stopped when the epoch reaches it.
    epoch_watch: EpochWatch,
}

impl Engine {
    /// An engine with the given settings, generating code for this host.
    ///
    /// Fails on a [`BOUNDS_CHECKS_ENV`](crate::BOUNDS_CHECKS_ENV) value it
    /// does not know (unless the configuration chose its bounds checks), as
    /// well as on a host Cranelift cannot generate code for.
    pub fn new(config: &Config) -> Result<Engine> {
        let env_errors = [
            &config.bounds_checks_env_error,
            &config.profiler_env_error,
            &config.lazy_env_error,
            &config.tier.env_error,
        ];
        if let Some(e) = env_errors.into_iter().flatten().next() {
            return Err(Error::Usage(e.clone()));
        }
        super::engine_target::check_config(config)?;
        #[cfg(feature = "compiler")]
        let isa = super::codegen::host_isa(config)?;
        signals::install_handlers();
        let mut config = config.clone();
        // Under valgrind an out-of-bounds access to a guard page would be
        // reported before it becomes the trap: check bounds instead,
        // unless the embedder or the environment chose.
        if config.bounds_checks_unchosen && arch::running_on_valgrind() {
            config.bounds_checks = BoundsChecks::Explicit;
        }
        Ok(Engine {
            inner: Arc::new(EngineInner {
                #[cfg(feature = "compiler")]
                isa,
                exit_trampolines: Mutex::default(),
                native_trampolines: Mutex::default(),
                memory_pool: Arc::new(MemoryPool::new(config.memory_pool_capacity)),
                types: Arc::default(),
                config,
                epoch: AtomicU64::new(0),
                epoch_watch: EpochWatch::default(),
            }),
        })
    }

    /// The engine's configuration.
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    #[cfg(feature = "compiler")]
    pub(crate) fn isa(&self) -> &dyn cranelift_codegen::isa::TargetIsa {
        &*self.inner.isa
    }

    /// The code generator, shared (lazily compiled modules keep it).
    #[cfg(feature = "compiler")]
    pub(crate) fn shared_isa(&self) -> cranelift_codegen::isa::OwnedTargetIsa {
        self.inner.isa.clone()
    }

    /// What code compiled by this engine depends on, as named values: the
    /// runtime version, the target and its CPU features, and every setting
    /// that changes generated code. A compiled-code file records them, and
    /// loading it compares them one by one (`cache::header::check`). A
    /// runtime-only build knows no code generator settings: it leaves them
    /// and the CPU features out, and the loader checks those against the
    /// host (`cache::host`).
    pub(crate) fn fingerprint(&self) -> Vec<(String, String)> {
        let config = self.config();
        let mut out = vec![
            ("cranewasm".to_string(), env!("CARGO_PKG_VERSION").to_string()),
            ("cranelift".to_string(), crate::cache::header::CRANELIFT_VERSION.to_string()),
        ];
        #[cfg(feature = "compiler")]
        super::codegen::fingerprint(self.isa(), &mut out);
        #[cfg(not(feature = "compiler"))]
        out.push(("target".to_string(), target_lexicon::HOST.to_string()));
        let bounds = match config.bounds_checks {
            BoundsChecks::GuardPages => "guard-pages",
            BoundsChecks::Explicit => "explicit",
        };
        out.push(("bounds checks".into(), bounds.into()));
        out.push(("fuel".into(), config.consume_fuel.to_string()));
        out.push(("wasm features".into(), format!("{:#x}", config.wasm_features().bits())));
        out
    }

    /// Whether two handles name the same engine.
    pub fn same(a: &Engine, b: &Engine) -> bool {
        Arc::ptr_eq(&a.inner, &b.inner)
    }

    /// Advances the engine's epoch by one: calls in stores whose epoch
    /// deadline this reaches trap with
    /// [`Trap::EpochDeadline`](crate::Trap::EpochDeadline) (see
    /// [`Config::epoch_interruption`]). Callable from any thread, typically
    /// a timer's; one atomic add and one load, unless a deadline is
    /// reached, when it takes a lock and signals the threads running those
    /// stores' calls (so, unlike the add, not from a signal handler).
    pub fn increment_epoch(&self) {
        let now = self.inner.epoch.fetch_add(1, Ordering::SeqCst) + 1;
        self.inner.epoch_watch.advanced(now);
    }

    /// The current epoch (0 when the engine is created).
    pub fn current_epoch(&self) -> u64 {
        self.inner.epoch.load(Ordering::SeqCst)
    }

    pub(crate) fn epoch_counter(&self) -> &AtomicU64 {
        &self.inner.epoch
    }

    pub(crate) fn epoch_watch(&self) -> &EpochWatch {
        &self.inner.epoch_watch
    }

    /// The engine's type registry.
    pub(crate) fn type_registry(&self) -> &Arc<TypeRegistry> {
        &self.inner.types
    }

    /// The top of `ty`'s hierarchy (`func`, `extern`, `any` or `exn`), for a
    /// type the engine gave (a function's, global's, table's or field's):
    /// unlike [`HeapType::top`](crate::HeapType::top), a concrete struct or
    /// array type is known for one of `any`.
    pub fn top_of(&self, ty: crate::RefType) -> crate::HeapType {
        use crate::HeapType;
        match ty.heap_type() {
            HeapType::Concrete(t) => {
                match crate::environ::type_registry::canonical_id(t).and_then(|id| self.inner.types.kind(id)) {
                    Some(HeapType::Struct | HeapType::Array) => HeapType::Any,
                    _ => HeapType::Func,
                }
            }
            h => h.top(),
        }
    }

    /// How many distinct types the engine's modules and host functions
    /// use now (each registered once, and released when its last user
    /// goes). For tests.
    #[doc(hidden)]
    pub fn registered_type_count(&self) -> usize {
        self.inner.types.len()
    }

    pub(crate) fn memory_pool(&self) -> &Arc<MemoryPool> {
        &self.inner.memory_pool
    }

    /// The wasm→host trampoline for `ty`, compiled on first request (in a
    /// runtime-only build, taken from a loaded compiled-code file): its code
    /// and its address.
    pub(crate) fn exit_trampoline(&self, ty: &FuncType) -> Result<(Arc<CodeMemory>, *const u8)> {
        let mut cache = self.inner.exit_trampolines.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((code, at)) = cache.get(ty) {
            // SAFETY: the offset was checked to lie within the code when it
            // was cached.
            return Ok((code.clone(), unsafe { code.base().add(*at) }));
        }
        let code = super::codegen::exit_trampoline(self, ty)?;
        let range = code.range();
        profiling::register(
            self.config().profiler,
            code.bytes(),
            &[(range.start, range.len(), format!("wasm-to-host[{ty}]"))],
        );
        cache.insert(ty.clone(), (code.clone(), 0));
        let base = code.base();
        Ok((code, base))
    }

    /// Adds wasm→host trampolines that a compiled-code file brought, at
    /// offsets within `code`, for the signatures the engine has none for.
    pub(crate) fn add_exit_trampolines(&self, code: &Arc<CodeMemory>, at: impl IntoIterator<Item = (FuncType, usize)>) {
        let mut cache = self.inner.exit_trampolines.lock().unwrap_or_else(|e| e.into_inner());
        for (ty, offset) in at {
            debug_assert!(offset < code.bytes().len());
            cache.entry(ty).or_insert_with(|| (code.clone(), offset));
        }
    }

    /// The host→C trampoline for a C function of `params` and `results`
    /// (see [`NativeCall`](crate::NativeCall)), compiled on first request.
    pub(crate) fn native_trampoline(&self, params: &[ValType], results: &[ValType]) -> Result<Arc<CodeMemory>> {
        let mut cache = self.inner.native_trampolines.lock().unwrap_or_else(|e| e.into_inner());
        let key = (params.to_vec(), results.to_vec());
        if let Some(t) = cache.get(&key) {
            return Ok(t.clone());
        }
        let code = super::codegen::native_trampoline(self, params, results)?;
        cache.insert(key, code.clone());
        Ok(code)
    }
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new(&Config::default()).unwrap_or_else(|e| panic!("cannot create the default engine: {e}"))
    }
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        #[cfg(feature = "compiler")]
        return f.debug_struct("Engine").field("isa", &self.inner.isa.name()).finish();
        #[cfg(not(feature = "compiler"))]
        f.debug_struct("Engine").field("compiler", &"none").finish()
    }
}
