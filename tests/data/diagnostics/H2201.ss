# From the reference's section on H2201.
dim D = 768

fn patchify(img: [b 3 16 gh 16 gw]) -> [b (gh gw) D]:  # H2201, H2201
    return img |> rearrange(b c p gh q gw -> b (gh gw) (p q c))
