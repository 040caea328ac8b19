//! [`VMExternData`]: the host data behind an `externref`. A non-null
//! externref value, in a table, a global or a raw slot, is the address of
//! one of these.

use std::any::Any;

use super::store::StoreOpaque;
use super::stored::StoreOwned;

/// Host data behind an `externref`. It lives as long as its store: the
/// runtime does not trace references held by wasm code.
pub struct VMExternData {
    pub(crate) value: Box<dyn Any + Send + Sync>,
}

impl StoreOwned for VMExternData {
    fn list(store: &mut StoreOpaque) -> &mut Vec<Box<Self>> {
        &mut store.externrefs
    }
}
