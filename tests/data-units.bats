#!/usr/bin/env bats
# bench's input pipeline piece by piece, driven by bin/test-data-check (no
# bench run): the crop box against torchvision's on the same draws and in
# distribution, the decode against PIL's, the shards, the batches, the
# labels, the tree's numbering; and the generator, imagenet-synthetic.
# tests/data_reference.py is torchvision's and PIL's side. Without Debian's
# python3-torchvision the comparisons are skipped, never passed. make
# test-sanitize runs this file again on AddressSanitizer + UBSan builds;
# tests/data.bats runs bench on the images.

bats_require_minimum_version 1.5.0
load helper
load data-tree

REF="$ROOT/tests/data_reference.py"

need_torch() {
	"$PY" -c 'import torch, torchvision, PIL' 2>/dev/null ||
		skip "python3-torchvision not installed"
}

@test "the crop box is torchvision's RandomResizedCrop on the same draws, the fallback included" {
	need_torch
	cd "$BATS_TEST_TMPDIR"
	"$PY" "$REF" crop 400 7 draws expected
	run -0 test-data-check crop <draws
	[ "$output" = "$(cat expected)" ]
	# ten failed tries (20 draws) then the centred fallback: 3 x 200 and 1 x 1 px images
	[ "$(awk 'NF == 22' draws | wc -l)" -ge 1 ]
	grep -q '^98 0 4 3$' expected
}

@test "bench's own crop boxes are distributed as torchvision's: scale, ratio, the fallback's share" {
	need_torch
	cd "$BATS_TEST_TMPDIR"
	for shape in "500 375" "375 500" "2000 60" "7 5"; do
		test-data-check boxes $shape 20000 3 >boxes
		run -0 "$PY" "$REF" stats $shape 20000 3 boxes
		echo "$shape: $output"
	done
	# and the check fails on boxes that are not torchvision's (always the whole image)
	yes "0 0 375 500" | head -n 20000 >boxes
	run -1 "$PY" "$REF" stats 500 375 20000 3 boxes
	[[ "$output" == *"scale means differ"* ]]
}

# sample FILE SCALE_MIN K: bench's sample K of FILE against PIL's; prints the figures
sample_vs_pil() {
	test-data-check sample "$1" 64 "$2" 1 "$3" >"$BATS_TEST_TMPDIR/s.out"
	"$PY" "$REF" sample "$BATS_TEST_TMPDIR/s.out" "$1" 64
}

# PIL resamples in 8 bits with 22-bit fixed-point weights and rounds after
# each pass (up to half a level each, so about 1 level together); bench keeps
# floats, and decodes only the crop's region (the chroma upsampling of its
# first and last rows may differ by a level from a whole decode). Measured:
# at most 1.53 levels of 255, 0.27 on average; allowed: 2 and 0.5.
within_pil() {
	echo "$1"
	awk '{ for (i = 1; i < NF; i++) if ($i == "max") m = $(i + 1); else if ($i == "mean") a = $(i + 1) }
		END { exit !(m <= 2 && a <= 0.5) }' <<<"$1"
}

@test "decoded at full scale, a sample is PIL's decode, crop, resize, flip and normalisation" {
	need_torch
	for k in 0 1 2 3; do
		run -0 sample_vs_pil "$IMG" 8 $k
		within_pil "$output"
	done
	# a flipped one among them
	run -0 bash -c "for k in 0 1 2 3; do test-data-check sample '$IMG' 64 8 1 \$k | head -1; done"
	[[ "$output" == *" 1 8"* ]]
}

@test "grayscale and CMYK JPEGs are decoded as PIL converts them to RGB" {
	need_torch
	cd "$BATS_TEST_TMPDIR"
	"$PY" -c "from PIL import Image; im = Image.open('$IMG')
im.convert('L').save('gray.jpg', quality=90); im.convert('CMYK').save('cmyk.jpg', quality=90)"
	for f in gray.jpg cmyk.jpg; do
		run -0 sample_vs_pil "$f" 8 0
		within_pil "$output"
	done
}

@test "the loader decodes at a reduced DCT scale where the crop allows, close to PIL's full decode" {
	need_torch
	run -0 sample_vs_pil "$IMG" 1 1
	echo "$output"
	# a 64 px output from a crop of a ~500 x 375 image: 1/8 .. 7/8
	[[ "$output" =~ ^scale\ [1-7]/8 ]]
	# a different filter (the DCT's) on a fine texture: close on average only
	awk '{ for (i = 1; i < NF; i++) if ($i == "mean") exit !($(i + 1) <= 8) }' <<<"$output"
}

@test "the loader decodes only at libjpeg-turbo's SIMD scales (1/8, 2/8, 4/8, 8/8), the smallest that covers the crop" {
	# 40 crops of a ~500 x 375 image at 32, 64 and 112 px: every scale one
	# of the four, the reduced ones among them, and each the smallest of the
	# four at which the crop's box spans the output (the box: top, left,
	# height, width; the scale last)
	for px in 32 64 112; do
		for k in $(seq 0 39); do
			test-data-check sample "$IMG" $px 1 1 $k | head -1 | sed "s/^/$px /"
		done
	done >"$BATS_TEST_TMPDIR/scales"
	run -0 awk '{ px = $1; h = $4; w = $5; s = $7
		if (s != 1 && s != 2 && s != 4 && s != 8) { print "scale " s "/8 at " px " px"; exit 1 }
		want = 8
		for (k = 4; k >= 1; k /= 2) if (w * k >= 8 * px && h * k >= 8 * px) want = k
		if (s != want) { print "scale " s "/8, want " want "/8: " $0; exit 1 }
		n[s]++ }
		END { for (k in n) printf "%s/8 %d\n", k, n[k] }' "$BATS_TEST_TMPDIR/scales"
	echo "$output"
	[[ "$output" == *"1/8 "* || "$output" == *"2/8 "* || "$output" == *"4/8 "* ]]
}

@test "shards are disjoint and cover every epoch (DistributedSampler), and epochs are reshuffled" {
	# n per_rank*world: each epoch every image once
	run -0 test-data-check shards 12 4 9 2
	[ "${#lines[@]}" -eq 24 ]
	for e in 0 1; do
		[ "$(awk -v e=$e '$2 == e { print $3 }' <<<"$output" | sort -n | uniq | wc -l)" -eq 12 ]
		[ "$(awk -v e=$e '$2 == e' <<<"$output" | wc -l)" -eq 12 ]
	done
	[ "$(awk '$2 == 0 { printf "%s ", $3 }' <<<"$output")" != \
		"$(awk '$2 == 1 { printf "%s ", $3 }' <<<"$output")" ]
	# 10 images, 3 ranks: 4 each, padded by the permutation's own head (2 repeats)
	run -0 test-data-check shards 10 3 9 1
	[ "${#lines[@]}" -eq 12 ]
	[ "$(awk '{ print $3 }' <<<"$output" | sort -n | uniq | wc -l)" -eq 10 ]
	[ "$(awk '$1 == 0' <<<"$output" | wc -l)" -eq 4 ]
	[ "$(awk '$1 == 2' <<<"$output" | wc -l)" -eq 4 ]
	# the same seed, the same shards; another seed, others
	[ "$(test-data-check shards 10 3 9 1)" = "$output" ]
	[ "$(test-data-check shards 10 3 8 1)" != "$output" ]
}

@test "the same seed gives the same first batch with 1 or 2 threads; another seed another" {
	run -0 test-data-check batch "$TREE" 4 32 1 1
	a=$output
	run -0 test-data-check batch "$TREE" 4 32 2 1
	[ "$output" = "$a" ]
	run -0 test-data-check batch "$TREE" 4 32 2 2
	[ "$output" != "$a" ]
	# ranks of a world read different images
	run -0 test-data-check batch "$TREE" 4 32 1 1 2 1
	[ "$output" != "$a" ]
}

@test "each sample comes with its own label: the generator's two classes, reddish and bluish" {
	# class 0 is red (hue 0), class 1 blue (hue 0.62): red above blue in class 0 only
	run -0 test-data-check means "$TREE" 8 32 2 4
	[ "${#lines[@]}" -eq 10 ]
	printf '%s\n' "${lines[@]:1:8}" | awk '{ if (($1 == 0) != ($2 > $4)) bad = 1; n[$1]++ }
		END { exit bad || !n[0] || !n[1] }'
}

@test "the tree is numbered as torchvision's ImageFolder numbers it" {
	need_torch
	local t="$BATS_TEST_TMPDIR/t"
	mkdir -p "$t/b_cls/sub" "$t/a_cls" "$t/C"
	for f in b_cls/2.JPEG b_cls/10.jpg b_cls/sub/1.jpeg a_cls/z.JPG a_cls/a.png C/x.jpeg; do
		cp "$IMG" "$t/$f"
	done
	touch "$t/a_cls/notes.txt" "$t/b_cls/x.JPEG.bak"
	run -0 test-data-check scan "$t"
	[ "$output" = "$("$PY" -c "import torchvision
for p, c in torchvision.datasets.ImageFolder('$t').samples: print(c, p)")" ]
}

@test "imagenet-synthetic writes N JPEGs in CLASSES folders that PIL reads, about 500 x 375 at quality 90" {
	need_torch
	run -0 --separate-stderr imagenet-synthetic -n 9 -c 3 -s 2 "$BATS_TEST_TMPDIR/s"
	[[ "$stderr" =~ ^imagenet-synthetic:\ .*/s:\ 9\ images\ in\ 3\ classes,\ mean\ [0-9]+\ x\ [0-9]+\ px,\ [0-9.]+\ KB ]]
	[ "$(ls "$BATS_TEST_TMPDIR/s")" = "n00000000
n00000001
n00000002" ]
	[ "$(find "$BATS_TEST_TMPDIR/s" -name '*.JPEG' | wc -l)" -eq 9 ]
	"$PY" -c "import glob; from PIL import Image
for f in glob.glob('$BATS_TEST_TMPDIR/s/*/*.JPEG'):
    im = Image.open(f); im.load(); assert im.format == 'JPEG' and im.mode == 'RGB', f"
	# the same seed, the same bytes; an existing directory is refused
	imagenet-synthetic -n 9 -c 3 -s 2 "$BATS_TEST_TMPDIR/t" 2>/dev/null
	diff -r "$BATS_TEST_TMPDIR/s" "$BATS_TEST_TMPDIR/t"
	run -1 --separate-stderr imagenet-synthetic -n 9 -c 3 "$BATS_TEST_TMPDIR/t"
	[ "$stderr" = "imagenet-synthetic: $BATS_TEST_TMPDIR/t: File exists" ]
}
