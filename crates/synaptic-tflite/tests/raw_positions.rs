//! The raw-position accessors (`Table::position`, `offset_target`, `has_field`,
//! `field_slots`, `Model::root`, `Buffer::table`, `Metadata::table`) against a hand-built
//! FlatBuffer and a real model.

use synaptic_tflite::{tests_support::tiny_model, Error, Model};

/// A minimal model: root with `version` (field 0) = 3, `buffers` (field 4) = [one empty
/// buffer], `metadata` (field 6) = [{ name "ab", buffer 0 }]; fields 1..=3 and 5 absent.
fn hand_built() -> (Vec<u8>, usize, usize, usize, usize) {
    let mut b = Vec::new();
    let u16 = |b: &mut Vec<u8>, v: u16| b.extend_from_slice(&v.to_le_bytes());
    let u32 = |b: &mut Vec<u8>, v: u32| b.extend_from_slice(&v.to_le_bytes());
    u32(&mut b, 0); // root offset, patched
    b.extend_from_slice(b"TFL3");
    // Root vtable: 7 slots (fields 0..=6), table of 4 + 3*4 bytes.
    let vt = b.len();
    u16(&mut b, 4 + 2 * 7);
    u16(&mut b, 16);
    for off in [4u16, 0, 0, 0, 8, 0, 12] {
        u16(&mut b, off);
    }
    while b.len() % 4 != 0 {
        b.push(0);
    }
    let root = b.len();
    u32(&mut b, (root - vt) as u32);
    u32(&mut b, 3); // version
    let buffers_slot = b.len();
    u32(&mut b, 0);
    let metadata_slot = b.len();
    u32(&mut b, 0);
    // buffers vector: one table.
    let buffers_vec = b.len();
    u32(&mut b, 1);
    let buffer_ref = b.len();
    u32(&mut b, 0);
    // metadata vector: one table.
    let metadata_vec = b.len();
    u32(&mut b, 1);
    let metadata_ref = b.len();
    u32(&mut b, 0);
    // Buffer table: empty vtable (no fields).
    let bvt = b.len();
    u16(&mut b, 4);
    u16(&mut b, 4);
    let buffer = b.len();
    u32(&mut b, (buffer - bvt) as u32);
    // Metadata vtable: name (field 0) at 4, buffer (field 1) at 8.
    let mvt = b.len();
    u16(&mut b, 8);
    u16(&mut b, 12);
    u16(&mut b, 4);
    u16(&mut b, 8);
    let metadata = b.len();
    u32(&mut b, (metadata - mvt) as u32);
    let name_slot = b.len();
    u32(&mut b, 0);
    u32(&mut b, 0); // buffer 0
    let name = b.len();
    u32(&mut b, 2);
    b.extend_from_slice(b"ab\0\0");
    let mut set = |at: usize, to: usize| {
        let v = if at == 0 { to } else { to - at } as u32;
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
    };
    set(0, root);
    set(buffers_slot, buffers_vec);
    set(metadata_slot, metadata_vec);
    set(buffer_ref, buffer);
    set(metadata_ref, metadata);
    set(name_slot, name);
    (b, root, buffers_vec, metadata_vec, buffer)
}

#[test]
fn positions_of_a_hand_built_model() {
    let (bytes, root_at, buffers_vec, metadata_vec, buffer_at) = hand_built();
    let m = Model::new(&bytes).unwrap();
    let root = m.root();
    assert_eq!(root.position(), root_at);
    assert_eq!(root.field_slots(), 7);
    let present: Vec<bool> = (0..9).map(|n| root.has_field(n).unwrap()).collect();
    assert_eq!(
        present,
        [true, false, false, false, true, false, true, false, false]
    );
    assert_eq!(root.offset_target(4).unwrap(), Some(buffers_vec));
    assert_eq!(root.offset_target(6).unwrap(), Some(metadata_vec));
    assert_eq!(root.offset_target(1).unwrap(), None);
    assert_eq!(root.offset_target(100).unwrap(), None);
    assert_eq!(m.version().unwrap(), 3);
    assert_eq!(m.buffer(0).unwrap().table().position(), buffer_at);
    let md = m.metadata(0).unwrap();
    assert_eq!(md.name().unwrap(), Some(&b"ab"[..]));
    assert_eq!(md.table().field_slots(), 2);
    assert!(md.table().has_field(0).unwrap() && md.table().has_field(1).unwrap());
    assert!(!md.table().has_field(2).unwrap());
}

#[test]
fn offset_target_past_the_end_is_an_error() {
    let (mut bytes, _, _, _, _) = hand_built();
    let m = Model::new(&bytes).unwrap();
    let root_at = m.root().position();
    // Point the buffers field (at root + 8) past the end.
    let at = root_at + 8;
    bytes[at..at + 4].copy_from_slice(&0x7fff_0000u32.to_le_bytes());
    // The model no longer opens: the bad offset is reported, never followed.
    assert!(matches!(Model::new(&bytes), Err(Error::Malformed { .. })));
}

#[test]
fn positions_of_a_real_model_agree_with_the_typed_views() {
    let m = Model::new(tiny_model()).unwrap();
    let root = m.root();
    assert!(root.field_slots() >= 5);
    assert!(root.has_field(2).unwrap(), "subgraphs");
    let buffers = root.offset_target(4).unwrap().unwrap();
    let n = u32::from_le_bytes(m.bytes()[buffers..buffers + 4].try_into().unwrap()) as usize;
    assert_eq!(n, m.buffers_len().unwrap());
    for i in 0..n {
        let slot = buffers + 4 + 4 * i;
        let off = u32::from_le_bytes(m.bytes()[slot..slot + 4].try_into().unwrap()) as usize;
        assert_eq!(m.buffer(i).unwrap().table().position(), slot + off);
    }
}
