//! Anthropic Messages.

mod finish_reason;
pub(crate) mod request;
pub(crate) mod response;
mod stream;
mod usage;

pub(crate) use finish_reason::map_stop_reason;
pub(crate) use stream::AnthropicStream;
pub(crate) use usage::convert_usage;

use crate::json::{JsonResult, Reader};

/// An object read key by key into a default `T` (`field` reads the values it wants, the others
/// are skipped), or `None`, the value skipped, when it is not an object.
fn read_object<'a, T: Default>(
    r: &mut Reader<'a>,
    mut field: impl FnMut(&mut T, &mut Reader<'a>, &[u8]) -> JsonResult<()>,
) -> JsonResult<Option<T>> {
    let mut value = T::default();
    let object = r.object(|r, key| field(&mut value, r, key))?;
    Ok(object.then_some(value))
}
