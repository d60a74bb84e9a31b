# From the reference's section on W0201.
## The model width.
#^ W0201

dim D = 768
