# Shared by tests/data.bats and tests/data-units.bats, loaded after helper:
# the generator's tree of 12 JPEGs in 2 classes, made once a file, as TREE,
# and one of its images as IMG; PY, the Python that has torchvision and PIL.

PY=/usr/bin/python3

setup_file() {
	local bin="${BIN_UNDER_TEST:-$ROOT/bin}"
	"$bin/imagenet-synthetic" -n 12 -c 2 -s 5 "$BATS_FILE_TMPDIR/tree" 2>/dev/null
}

setup() {
	common_setup
	TREE="$BATS_FILE_TMPDIR/tree"
	IMG="$TREE/n00000001/n00000001_2.JPEG"
}
