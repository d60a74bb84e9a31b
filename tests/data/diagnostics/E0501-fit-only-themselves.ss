# Mask, Binary and Additive fit only themselves.
fn binary_as_unit(b: [n] Binary) -> [n] Unit = b  # E0501

fn additive_as_real(a: [n] Additive) -> [n] = a  # E0501

fn binary_kept(b: [n] Binary) -> [n] Binary = b
