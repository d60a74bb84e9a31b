import imported.shapes

fn in_a_type(x: shapes.Nothing) = x  # E2304

fn in_a_shape(x: [n shapes.E]) = x  # E2304

fn a_model(m: shapes.Mlp) = m  # E2304

fn as_a_value() = shapes.missing  # E2304

fn declared(x: [n]) -> [n] = shapes.double(x)
