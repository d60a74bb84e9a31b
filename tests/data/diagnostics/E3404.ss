# Models nested more than 64 levels deep: reported once, where the nesting first passes the limit.
dim D = 2

model M0:
    param w: [D] = zeros
    inner: M1

model M1:
    param w: [D] = zeros
    inner: M2  # E3404

model M2:
    param w: [D] = zeros
    inner: M3

model M3:
    param w: [D] = zeros
    inner: M4

model M4:
    param w: [D] = zeros
    inner: M5

model M5:
    param w: [D] = zeros
    inner: M6

model M6:
    param w: [D] = zeros
    inner: M7

model M7:
    param w: [D] = zeros
    inner: M8

model M8:
    param w: [D] = zeros
    inner: M9

model M9:
    param w: [D] = zeros
    inner: M10

model M10:
    param w: [D] = zeros
    inner: M11

model M11:
    param w: [D] = zeros
    inner: M12

model M12:
    param w: [D] = zeros
    inner: M13

model M13:
    param w: [D] = zeros
    inner: M14

model M14:
    param w: [D] = zeros
    inner: M15

model M15:
    param w: [D] = zeros
    inner: M16

model M16:
    param w: [D] = zeros
    inner: M17

model M17:
    param w: [D] = zeros
    inner: M18

model M18:
    param w: [D] = zeros
    inner: M19

model M19:
    param w: [D] = zeros
    inner: M20

model M20:
    param w: [D] = zeros
    inner: M21

model M21:
    param w: [D] = zeros
    inner: M22

model M22:
    param w: [D] = zeros
    inner: M23

model M23:
    param w: [D] = zeros
    inner: M24

model M24:
    param w: [D] = zeros
    inner: M25

model M25:
    param w: [D] = zeros
    inner: M26

model M26:
    param w: [D] = zeros
    inner: M27

model M27:
    param w: [D] = zeros
    inner: M28

model M28:
    param w: [D] = zeros
    inner: M29

model M29:
    param w: [D] = zeros
    inner: M30

model M30:
    param w: [D] = zeros
    inner: M31

model M31:
    param w: [D] = zeros
    inner: M32

model M32:
    param w: [D] = zeros
    inner: M33

model M33:
    param w: [D] = zeros
    inner: M34

model M34:
    param w: [D] = zeros
    inner: M35

model M35:
    param w: [D] = zeros
    inner: M36

model M36:
    param w: [D] = zeros
    inner: M37

model M37:
    param w: [D] = zeros
    inner: M38

model M38:
    param w: [D] = zeros
    inner: M39

model M39:
    param w: [D] = zeros
    inner: M40

model M40:
    param w: [D] = zeros
    inner: M41

model M41:
    param w: [D] = zeros
    inner: M42

model M42:
    param w: [D] = zeros
    inner: M43

model M43:
    param w: [D] = zeros
    inner: M44

model M44:
    param w: [D] = zeros
    inner: M45

model M45:
    param w: [D] = zeros
    inner: M46

model M46:
    param w: [D] = zeros
    inner: M47

model M47:
    param w: [D] = zeros
    inner: M48

model M48:
    param w: [D] = zeros
    inner: M49

model M49:
    param w: [D] = zeros
    inner: M50

model M50:
    param w: [D] = zeros
    inner: M51

model M51:
    param w: [D] = zeros
    inner: M52

model M52:
    param w: [D] = zeros
    inner: M53

model M53:
    param w: [D] = zeros
    inner: M54

model M54:
    param w: [D] = zeros
    inner: M55

model M55:
    param w: [D] = zeros
    inner: M56

model M56:
    param w: [D] = zeros
    inner: M57

model M57:
    param w: [D] = zeros
    inner: M58

model M58:
    param w: [D] = zeros
    inner: M59

model M59:
    param w: [D] = zeros
    inner: M60

model M60:
    param w: [D] = zeros
    inner: M61

model M61:
    param w: [D] = zeros
    inner: M62

model M62:
    param w: [D] = zeros
    inner: M63

model M63:
    param w: [D] = zeros
    inner: M64

model M64:
    param w: [D] = zeros
    inner: M65

model M65:
    param w: [D] = zeros
    inner: M66

model M66:
    param w: [D] = zeros
