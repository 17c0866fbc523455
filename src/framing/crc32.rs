//! CRC-32 (IEEE 802.3, the zlib one) for the AWS event-stream checksums.
//!
//! Byte-wise from one compile-time table: crc32fast's slice-by-16 tables are large in wasm and
//! the checksum is not on the hot path (one pass per AWS frame).

/// The reflected polynomial 0x04C11DB7.
const POLYNOMIAL: u32 = 0xEDB8_8320;

const TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut crc = i as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 == 1 { POLYNOMIAL ^ (crc >> 1) } else { crc >> 1 };
            bit += 1;
        }
        table[i] = crc;
        i += 1;
    }
    table
};

/// The CRC-32 of `bytes`.
#[cfg_attr(llw_speed, optimize(speed))]
pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc = TABLE[((crc ^ byte as u32) & 0xFF) as usize] ^ (crc >> 8);
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::crc32;

    /// Check values from the CRC catalogue (CRC-32/ISO-HDLC) and zlib's `crc32`.
    const CASES: &[(&str, &[u8], u32)] = &[
        ("the empty input has crc zero", b"", 0),
        ("the catalogue check string", b"123456789", 0xCBF4_3926),
        ("one zero byte", b"\0", 0xD202_EF8D),
        ("four ff bytes", b"\xFF\xFF\xFF\xFF", 0xFFFF_FFFF),
        ("a sentence", b"The quick brown fox jumps over the lazy dog", 0x414F_A339),
    ];

    #[test]
    fn known_inputs_give_their_published_crc() {
        for (name, input, want) in CASES {
            assert_eq!(crc32(input), *want, "{name}");
        }
    }

    /// The table against the bit-at-a-time definition, on every byte value and a longer input.
    #[test]
    fn the_table_agrees_with_the_bitwise_definition() {
        fn bitwise(bytes: &[u8]) -> u32 {
            let mut crc = !0u32;
            for &byte in bytes {
                crc ^= byte as u32;
                for _ in 0..8 {
                    crc = if crc & 1 == 1 { super::POLYNOMIAL ^ (crc >> 1) } else { crc >> 1 };
                }
            }
            !crc
        }
        let all: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
        for byte in 0..=255u8 {
            assert_eq!(crc32(&[byte]), bitwise(&[byte]), "byte {byte}");
        }
        assert_eq!(crc32(&all), bitwise(&all));
    }
}
