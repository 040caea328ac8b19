//! [`Linker`]: resolving imports by module and field name.

use std::collections::HashMap;

use crate::environ::error::{LinkError, Result};
use crate::runtime::extern_::Extern;
use crate::runtime::instance::Instance;
use crate::runtime::module::Module;
use crate::runtime::store::{AsContext, AsContextMut};

/// A set of named definitions that modules can import.
#[derive(Default, Clone)]
pub struct Linker {
    defs: HashMap<(String, String), Extern>,
}

impl Linker {
    /// An empty linker.
    pub fn new() -> Linker {
        Linker::default()
    }

    /// Defines `module::name` as `item`, replacing an earlier definition.
    pub fn define(&mut self, module: &str, name: &str, item: impl Into<Extern>) -> &mut Linker {
        self.defs.insert((module.to_string(), name.to_string()), item.into());
        self
    }

    /// Defines every export of `instance` under the module name `module`.
    pub fn instance(&mut self, store: impl AsContext, module: &str, instance: Instance) -> &mut Linker {
        for (name, item) in instance.exports(&store) {
            self.define(module, &name, item);
        }
        self
    }

    /// The definition of `module::name`, if any.
    pub fn get(&self, module: &str, name: &str) -> Option<Extern> {
        self.defs.get(&(module.to_string(), name.to_string())).copied()
    }

    /// Instantiates `module`, resolving each import by name; a
    /// [`LinkError::Missing`] for the first import without a definition.
    pub fn instantiate(&self, mut store: impl AsContextMut, module: &Module) -> Result<Instance> {
        let imports = module
            .imports()
            .enumerate()
            .map(|(index, import)| self.get(&import.module, &import.name).ok_or(LinkError::Missing { index, import }))
            .collect::<Result<Vec<_>, _>>()?;
        Instance::new(&mut store, module, &imports)
    }
}
