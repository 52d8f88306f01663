# Shared by every suite: a hermetic environment and the project's binaries
# first on PATH. Load with `load helper`.

bats_require_minimum_version 1.5.0

ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
FIXTURES="$ROOT/tests/fixtures"

common_setup() {
	export LC_ALL=C TZ=UTC
	export HOME="$BATS_TEST_TMPDIR/home"
	mkdir -p "$HOME"
	export PATH="${BIN_UNDER_TEST:-$ROOT/bin}:/usr/local/bin:/usr/bin:/bin"
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
}

setup() {
	common_setup
}

# need_bin NAME: skip unless the programs under test hold NAME (bench-cuda,
# check-gpu-compare: built only with the CUDA toolkit).
need_bin() {
	[ -x "${BIN_UNDER_TEST:-$ROOT/bin}/$1" ] || skip "bin/$1 not built (no CUDA toolkit, or CUDA=0)"
}

# The job's lines of a launch run: $lines without launch's "# env", "# mem"
# and "# energy" lines (tests/launch.bats tests those).
drop_meta() {
	mapfile -t lines < <(printf '%s\n' "${lines[@]}" | grep -v '^# \(env\|mem\|energy\) ')
}

# 0 when oneDNN runs Winograd here (fp32 3x3 convolutions, AVX-512): bench
# --conv-algo winograd says in one line when it has none.
has_winograd() {
	! bench --image 32 --batch 2 --classes 10 --iters 1 --conv-algo winograd 2>&1 >/dev/null |
		grep -q "has no Winograd"
}
