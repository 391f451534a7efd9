//! A key-value store.
use std::collections::HashMap;
use std::fmt::{self, Display};
pub use crate::error::Error as StoreError;
use super::*;

pub const MAX_KEYS: usize = 1 << 20;
static mut COUNTER: u32 = 0;

pub type Result<T> = std::result::Result<T, StoreError>;

#[derive(Debug, Clone)]
pub struct Store<K, V> {
    data: HashMap<K, V>,
}

pub(crate) struct Inner;

pub enum Command {
    Get(String),
    Set { key: String, value: String },
}

pub trait Backend: Send + Sync {
    fn get(&self, key: &str) -> Option<String>;
    fn put(&mut self, key: String, value: String) -> Result<()> {
        Ok(())
    }
}

union Bits {
    i: u32,
    f: f32,
}

impl<K: std::hash::Hash + Eq, V: Clone> Store<K, V> {
    pub fn new() -> Self {
        Store { data: HashMap::new() }
    }

    pub fn get(&self, key: &K) -> Option<V> {
        self.data.get(key).cloned()
    }

    fn len(&self) -> usize {
        self.data.len()
    }
}

impl Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.name())
    }
}

pub async fn serve(addr: &str) -> std::io::Result<()> {
    let store: Store<String, String> = Store::new();
    println!("serving on {}", addr);
    let v = vec![1, 2, 3];
    helper(v.len());
    Ok(())
}

fn helper(n: usize) -> usize {
    n * 2
}

macro_rules! square {
    ($x:expr) => {
        $x * $x
    };
}

pub mod api {
    pub fn handle() {}
}
