//! png: a 1024 x 1024 RGBA image (gradients and noise) encoded once, then
//! decoded eight times.
use bench_programs::{fnv, Lcg, FNV_START};

fn main() {
    let (w, h) = (1024u32, 1024u32);
    let mut rng = Lcg::new(29);
    let mut pixels = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            let noise = rng.below(16) as u32;
            pixels.extend_from_slice(&[
                ((x + noise) & 0xff) as u8,
                ((y * 3 + noise) & 0xff) as u8,
                (((x ^ y) >> 2) & 0xff) as u8,
                255 - (noise as u8),
            ]);
        }
    }
    let mut file = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut file, w, h);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().unwrap();
        writer.write_image_data(&pixels).unwrap();
    }
    let mut check = fnv(FNV_START, &(file.len() as u64).to_le_bytes());
    for _ in 0..8 {
        let decoder = png::Decoder::new(file.as_slice());
        let mut reader = decoder.read_info().unwrap();
        let mut out = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut out).unwrap();
        assert!(out[..info.buffer_size()] == pixels[..], "decoded pixels");
        check = fnv(check, &out[..4096]);
    }
    println!("{}", check >> 1);
}
