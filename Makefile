# dlbench — the pipeline: configurations → logs → results.
#
#   make                               build, then a real small table on this machine
#   make results/4n8g_b128_fp32.md     the ladder 1n1g … 4n8g; runs only missing logs
#   make results/4n8g_b128_fp32.json   the same as DLPerf's result JSON
#   make results/4n8g_b128_fp32.tsv    the speedup records every view above and below reads
#   make results/compare_b128_fp32.md  every framework with logs, side by side
#   make results/4n8g_b128_fp32.svg    the plot (gnuplot; .gp beside it re-plots)
#   make results/4n8g_b128_fp32.html   one self-contained page: table, plot, noise,
#                                      environment, method (compare_*.svg too)
#   make maxbatch KEY=1n8g_b128_fp32   the largest batch per device that fits, by bisection
#   make test                          every Bats suite (installs what they need)
#   make perf-roof | perf-cpu | perf-filters   the project's benchmarks (figures)
#   make format | format-check         the one C and CUDA style
#
# Knobs: FRAMEWORK (pipelines/*.mk, default bench), RUNS (5), LOGDIR (logs;
# a DLPerf log tree works), RESULTS (results), HOSTS (Open MPI host file),
# TIMEOUT (seconds per run), COMPAT=dlperf (DLPerf's own methods), ALIAS
# (precision alias for grep-iters, e.g. fp16=amp), WINDOW (window's flags,
# e.g. '-s 2 -n 4'; default: the log format's window), PUBLISHED (a
# data/dlperf TSV for a "published" column), RETRY=1 (run again the runs
# that ran out of memory), PEAK_TFLOPS (a device's peak for the MFU
# column, where the GPU table has none or to override it), ROOF (a file of
# bin/perf-roof's output: the CPUs' peak for MFU; measured when absent).
#
# Each part of the tree brings its own make fragment: lib/lib.mk (the shared
# library), filters/filters.mk (the filters: launch grep-iters window
# median speedup table plot ranks compare outcome), bench/bench.mk and
# bench/cuda/cuda.mk (the native trainer), pipelines/*.mk (one per
# framework), tests/tests.mk (suites), tests/perf/perf.mk (benchmarks).

.DELETE_ON_ERROR:
.SUFFIXES:
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
MAKEFLAGS += --no-builtin-rules --no-builtin-variables

CC := cc
CSTD := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
OPT := -O2 -g
WARN := -Wall -Wextra
CPPFLAGS := -Ilib
CFLAGS := $(CSTD) $(OPT) $(WARN) $(EXTRA_CFLAGS)
LDFLAGS := $(EXTRA_LDFLAGS)

BIN := bin
OBJ := build

.DEFAULT_GOAL := default

# ---- building ----------------------------------------------------------
#
# One pattern compiles every C file of the tree into $(OBJ)/<its path>.o;
# -MMD records the headers it read, so a header change rebuilds what uses
# it. A part that needs more flags sets XCFLAGS for its objects.
#
# A word for sh: in single quotes, a ' in it as '\''.
shq = '$(subst ','\'',$(1))'

# What is made depends on the flags it was made with (git's GIT-CFLAGS
# idea), one template for C, CUDA and the results: $(call
# track_flags,NAME,TEXT[,DIR]) is the rule of DIR/.flags-NAME (DIR: $(OBJ)
# unless given), which holds TEXT. The file is compared with TEXT as make
# reads this Makefile: only when they differ is it rewritten and what
# depends on it made again, so make -n shows only what a make would do.
# TEXT is kept in track_text_NAME, and the file's text in track_file_NAME,
# before they are compared: a comma in TEXT (nvcc's -Xcompiler
# -Wall,-Wextra) would split a function's arguments. Both are stripped:
# GNU make 4.3's $(file <) does not always drop the file's last newline.
track_same = $(and $(findstring x$(1),x$(2)),$(findstring x$(2),x$(1)))
define track_flags
track_text_$(1) := $(strip $(2))
track_path_$(1) := $(or $(3),$(OBJ))/.flags-$(1)
track_file_$(1) := $$(strip $$(if $$(wildcard $$(track_path_$(1))),$$(file <$$(track_path_$(1)))))
$$(track_path_$(1)):$$(if $$(call track_same,$$(track_text_$(1)),$$(track_file_$(1))),, FORCE)
	@mkdir -p $$(@D); printf '%s\n' $$(call shq,$$(track_text_$(1))) > $$@
endef
FORCE:
$(eval $(call track_flags,c,$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS)))

$(OBJ)/%.o: %.c $(OBJ)/.flags-c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(XCFLAGS) -MMD -MP -c -o $@ $<

# $(call objs,FILES): the objects of these C files.
objs = $(patsubst %.c,$(OBJ)/%.o,$(1))

$(BIN) $(OBJ):
	mkdir -p $@

# $(call need,VAR,what it is): a pipeline's required setting; checked only
# when a run of that pipeline is actually planned.
need = $(if $($(1)),,$(error FRAMEWORK=$(FRAMEWORK) needs $(1)=<$(2)>))

include lib/lib.mk
include filters/filters.mk
include bench/bench.mk
include $(wildcard bench/cuda/cuda.mk)
include $(wildcard tests/perf/perf.mk)
include $(sort $(wildcard pipelines/*.mk))
include tests/tests.mk
include tests/fuzz/fuzz.mk

# ---- dependencies ------------------------------------------------------
#
# The Debian packages, each named once: what the main job needs, and what
# the tests add (PyTorch for the reference checks, Bats, the network
# namespaces of the cluster rig, clang-format). `make deps` and `make
# test-deps` install the missing ones when run as root, else print the
# exact apt-get line and fail.

DEPS_MAIN := build-essential openmpi-bin libopenmpi-dev libdnnl-dev util-linux gnuplot-nox \
	libjpeg62-turbo-dev libturbojpeg0-dev
DEPS_TEST := $(DEPS_MAIN) bats python3-torch python3-torchvision libjemalloc2 iproute2 \
	clang-format chromium libxml2-utils clang libclang-rt-14-dev

# $(call install_missing,PACKAGES)
define install_missing
@missing=$$(for p in $(1); do \
	dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; \
done | tr '\n' ' '); \
if [ -z "$$missing" ]; then echo "$@: all Debian packages present"; exit 0; fi; \
if [ "$$(id -u)" = 0 ]; then \
	echo "$@: installing $$missing"; \
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
else \
	echo "$@: missing packages; run:"; \
	echo "  sudo apt-get install -y $$missing"; exit 1; \
fi
endef

deps:
	$(call install_missing,$(DEPS_MAIN))
test-deps:
	$(call install_missing,$(DEPS_TEST))
.PHONY: deps test-deps

# ---- style -------------------------------------------------------------
#
# Every C and CUDA file in the one style of .clang-format: `make format`
# applies it, `make format-check` lists the files that differ and fails.

CLANG_FORMAT := clang-format
FORMAT_FILES = $(shell git ls-files '*.c' '*.h' '*.cu' 2>/dev/null)

format:
	$(CLANG_FORMAT) -i $(FORMAT_FILES)
format-check:
	@bad=$$(for f in $(FORMAT_FILES); do \
		$(CLANG_FORMAT) "$$f" | cmp -s - "$$f" || echo "$$f"; done); \
	if [ -n "$$bad" ]; then echo "format-check: not formatted (make format):" $$bad >&2; exit 1; fi
.PHONY: format format-check

# ---- the pipeline ------------------------------------------------------

# Open MPI refuses root unless told twice; make as root means it.
ifeq ($(shell id -u),0)
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1
endif

FRAMEWORK ?= bench
RUNS ?= 5
LOGDIR ?= logs
RESULTS ?= results
TIMEOUT ?= 3600
HOSTS ?=
COMPAT ?=
ALIAS ?=
WINDOW ?=
PUBLISHED ?=
RETRY ?=
PEAK_TFLOPS ?=
ROOF ?=

# COMPAT goes to grep-iters only: its "# mode=dlperf" line tells window and
# median downstream.
GREP_FLAGS = $(if $(COMPAT),-c $(COMPAT)) $(if $(ALIAS),-a $(ALIAS))
PLOT_FLAGS = $(if $(PUBLISHED),-p $(PUBLISHED))
TABLE_FLAGS = $(PLOT_FLAGS) $(MFU_FLAGS)
# table's MFU column, in every view of a result (doc/filters.md)
MFU_FLAGS = $(if $(PEAK_TFLOPS),-P $(PEAK_TFLOPS)) $(if $(ROOF),-r $(ROOF))
RECORD_BINS := $(addprefix $(BIN)/,grep-iters window median speedup)
# $(call run_records,LOGS): one throughput per run of LOGS, read with COMPAT,
# ALIAS and WINDOW; what every result and make compare (filters.mk) read.
run_records = $(BIN)/grep-iters $(GREP_FLAGS) $(1) | $(BIN)/window $(WINDOW)

# The key's grammar is lib/key.c's, as lib/key.mk (lib/lib.mk) gives it:
# KEY_PATTERN, KEY_SHAPE.
# 4n8g_b128_fp32 → 4 8 128 fp32 (no precision contains "n" or "_": key.mk's
# generator checks).
key_parts = $(subst _, ,$(subst g_b, ,$(subst n, ,$(1))))
key_nodes = $(word 1,$(call key_parts,$(1)))
key_gpus = $(word 2,$(call key_parts,$(1)))
key_suffix = _b$(word 3,$(call key_parts,$(1)))_$(word 4,$(call key_parts,$(1)))

# The ladders of keys, in one shell for all of them and no process per key
# (a process per key made make -n slow with many results): for each key "KEY=L1,L2,…" where Li are
# the keys of its ladder — powers of two of devices per node up to G, then
# of nodes up to N (1n1g 1n2g 1n4g 1n8g 2n8g 4n8g for 4n8g) — or "KEY=!"
# when KEY is not a key.
comma := ,
ladders_of = $(shell for key in $(1); do \
	if ! [[ $$key =~ ^$(KEY_PATTERN)$$ ]]; \
	then echo "$$key=!"; continue; fi; \
	n=$${key%%n*}; g=$${key#*n}; g=$${g%%g_*}; s=_$${key#*g_}; out=; k=1; \
	while [ $$k -lt $$g ]; do out=$$out,1n$${k}g$$s; k=$$((k * 2)); done; out=$$out,1n$${g}g$$s; \
	m=2; while [ $$m -lt $$n ]; do out=$$out,$${m}n$${g}g$$s; m=$$((m * 2)); done; \
	[ $$n -le 1 ] || out=$$out,$${n}n$${g}g$$s; echo "$$key=$${out#,}"; done)
ladder_from = $(subst $(comma), ,$(patsubst $(1)=%,%,$(filter $(1)=%,$(2))))
ladder = $(call ladder_from,$(1),$(call ladders_of,$(1)))

# A DLPerf tree (LOGDIR/<N>n<G>g/<model>_b<B>_<prec>_<run>.log, or the
# train.sh layout of its first PyTorch reports,
# LOGDIR/<model>_<N>node_bz<B>/<N>n<G>c_real.log) is read as it is and never
# run into; ours is LOGDIR/<framework>/<key>/<run>.log.
DLPERF_TREE := $(if $(wildcard $(LOGDIR)/$(FRAMEWORK)),,$(wildcard $(LOGDIR)/1n1g $(LOGDIR)/*_*node_bz*))
RUN_IDS := $(shell seq 1 $(RUNS))

# logs_of KEY: the log files a result for KEY reads. A run that ran out of
# memory left no log but an outcome (<run>.outcome, doc/formats.md): that
# file stands for it, and it is not run again, unless RETRY is set. (A run
# that failed otherwise or timed out is run again: its outcome stays only
# until then.)
ifeq ($(DLPERF_TREE),)
oom_outcome = $(if $(RETRY),,$(if $(filter $(1),$(2)),$(filter status=oom,$(file <$(1)))))
run_files = $(foreach r,$(RUN_IDS),$(if $(call oom_outcome,$(1)/$(r).outcome,$(2)),\
	$(1)/$(r).outcome,$(1)/$(r).log))
logs_of = $(call run_files,$(LOGDIR)/$(FRAMEWORK)/$(1),$(wildcard $(LOGDIR)/$(FRAMEWORK)/$(1)/*.outcome))
else
# ALIAS=fp16=amp also reads the fp16 files of an amp ladder (DLPerf named
# some mixed-precision logs fp16, others amp).
alias_suffixes = $(1) $(if $(ALIAS),$(subst _$(word 2,$(subst =, ,$(ALIAS))),_$(word 1,$(subst =, ,$(ALIAS))),$(1)))
logs_of = $(sort $(foreach s,$(call alias_suffixes,$(call key_suffix,$(1))),\
	$(wildcard $(LOGDIR)/$(firstword $(subst _, ,$(1)))/*$(s)_*.log)) $(call trainsh_log,$(1)))
# train.sh's one fp32 log of KEY
trainsh_log = $(if $(filter fp32,$(word 4,$(call key_parts,$(1)))),$(wildcard \
	$(LOGDIR)/*_$(call key_nodes,$(1))node_bz$(word 3,$(call key_parts,$(1)))/$(call \
	key_nodes,$(1))n$(call key_gpus,$(1))c_real.log))
endif

# Runs on the same hosts never overlap, even under make -j: each run holds
# a lock named after its host file (they would share devices and cores).
RUN_LOCK = $(LOGDIR)/.lock-$(if $(HOSTS),$(notdir $(HOSTS)),localhost)

# $(call py_versions,PYTHON,pkg pkg ...): a pipeline's <fw>_VERSIONS (launch -v):
# "name=version" of those Python packages that are installed, from their
# metadata (importing a framework takes seconds).
py_versions = $(1) -c 'import importlib.metadata as m; [print(d.metadata["Name"].lower() + "=" + \
	d.version) for d in m.distributions() if (d.metadata["Name"] or "").lower() in "$(2)".split()]'

# run_rule KEY: how one log of KEY comes to be. The log is written to a
# temporary file and renamed, so a failed or interrupted run leaves none.
# The figure of its progress line is the run's own summary line (bench's
# "# summary ... samples_per_s=X"); a log without one gets the time alone.
# The run's stderr passes through and is kept beside it until it ends
# (its tee ignores the signals that stop the job, so launch can still say
# so). A run that fails leaves its outcome instead, <run>.outcome (bin/outcome
# reads the partial log and the stderr: out of memory, failed or timeout),
# and the rule succeeds, so that the result is made with the run's row;
# the views then make make fail (view_status). Asked for itself (make
# LOGDIR/FW/KEY/1.log) the rule fails. A run that launch says was
# interrupted leaves no outcome, and the rule fails with launch's status.
define run_rule
$(LOGDIR)/$(FRAMEWORK)/$(1)/%.log: | $$($(FRAMEWORK)_DEPS) $(BIN)/launch $(BIN)/outcome
	@mkdir -p $$(@D) $(LOGDIR)
	@echo "run: $(FRAMEWORK) $(1) #$$* …" >&2
	@o=$$(@D)/$$*.outcome; trap 'rm -f $$@.tmp $$@.err "$$$$o.tmp"' EXIT; start=$$$$(date +%s); \
	{ flock $(RUN_LOCK) $(BIN)/launch -t $(TIMEOUT) $(if $(HOSTS),-H $(HOSTS)) \
		$$(if $$($(FRAMEWORK)_VERSIONS),-v $$(call shq,$$($(FRAMEWORK)_VERSIONS))) $(1) -- \
		$$($(FRAMEWORK)_CMD) > $$@.tmp; } 2>&1 | { trap '' INT TERM HUP; exec tee $$@.err >&2; } || \
	{ rc=$$$$?; \
		if $(BIN)/outcome -F $(FRAMEWORK) -k $(1) -r $$* -x $$$$rc $$@.tmp $$@.err > "$$$$o.tmp"; then \
			mv "$$$$o.tmp" "$$$$o"; st=$$$$(sed 's/.* status=\([a-z]*\).*/\1/' "$$$$o"); \
			echo "make: $(FRAMEWORK) $(1) run $$* failed (exit $$$$rc); no log kept; its outcome," \
				"$$$$st, is in $$$$o$$$$([ $$$$st != oom ] || echo ', not run again without RETRY=1')" >&2; \
			exit $$(if $$(filter $$@,$$(MAKECMDGOALS)),1,0); \
		fi; \
		echo "make: $(FRAMEWORK) $(1) run $$* failed (exit $$$$rc); no log kept" >&2; exit $$$$rc; }; \
	mv $$@.tmp $$@; rm -f "$$$$o"; \
	rate=$$$$(sed -n '/^# summary /{s/.* samples_per_s=\([0-9.]*\).*/\1/p;q}' $$@); \
	echo "run: $(FRAMEWORK) $(1) #$$* done in $$$$(( $$$$(date +%s) - start )) s$$$${rate:+: $$$$rate samples/s (its summary)}" >&2
endef

# One intermediate per result: $(RESULTS)/NAME.tsv holds the speedup
# records of its logs with their meta lines, made once; the table, JSON,
# plot and page are views of it. A make with other flags or other logs
# (COMPAT, ALIAS, WINDOW; FRAMEWORK, LOGDIR, RUNS) makes each .tsv of that
# folder again: $(RESULTS)/.flags-tsv holds them (track_flags), as
# $(RESULTS)/.flags-views holds what the views add (PUBLISHED, PEAK_TFLOPS,
# ROOF).
TSV_FLAGS = $(GREP_FLAGS) | $(WINDOW) | $(FRAMEWORK) $(LOGDIR) $(RUNS)
VIEW_DEPS = $(RESULTS)/.flags-views $(PUBLISHED) $(ROOF)

# A result's command writes $@.tmp, renamed to $@ once whole; a failure
# leaves neither (.DELETE_ON_ERROR sees only $@).
to_tmp = > $@.tmp || { rm -f $@.tmp; false; }

# Of the runs FILES (logs and outcomes) once they have run: those with a
# log, and the outcomes of the others. $(wildcard) of whole names stats
# each file as the recipe is expanded, after the runs.
runs_logged = $(wildcard $(filter %.log,$(1)))
runs_failed = $(wildcard $(filter %.outcome,$(1)) $(patsubst %.log,%.outcome,\
	$(filter-out $(call runs_logged,$(1)),$(filter %.log,$(1)))))

# tsv_rule NAME,LOGS,WHAT: $(RESULTS)/NAME.tsv from LOGS (WHAT names them
# when there are none) and the outcomes of the runs that left none: median
# reads them after the run records and passes them on (doc/formats.md).
define tsv_rule
$(RESULTS)/$(1).tsv: $(2) $(RECORD_BINS) $(BIN)/outcome $(RESULTS)/.flags-tsv
	@mkdir -p $$(@D)
	$$(if $$(filter %.log %.outcome,$$^),,$$(error no logs of $(3) under $(LOGDIR)))
	@for f in $$(filter %.log,$$^); do [ -e "$$$$f" ] || [ -e "$$$${f%.log}.outcome" ] || \
		{ echo "make: $$$$f: the run left no log and no outcome" >&2; exit 1; }; done
	$$(if $$(call runs_logged,$$^),$(call run_records,$$(call runs_logged,$$^)) | \
		)$(BIN)/median $$(if $$(call runs_logged,$$^),$$(if $$(call runs_failed,$$^),- ))$$(call \
		runs_failed,$$^) | $(BIN)/speedup $$(to_tmp)
	@mv $$@.tmp $$@
	$$(call view_status)
endef
ladder_logs = $(foreach k,$(call ladder_from,$(1),$(LADDERS)),$(call logs_of,$(k)))

# Rules are generated only for the results asked for, so make -n with a
# thousand configurations' logs present stays fast.
RESULT_GOALS := $(filter $(addprefix $(RESULTS)/%.,tsv md json gp svg html),$(MAKECMDGOALS))
RESULT_KEYS := $(sort $(filter-out compare_%,$(basename $(notdir $(RESULT_GOALS)))))
COMPARE_KEYS := $(sort $(filter compare_%,$(basename $(notdir $(RESULT_GOALS)))))
LADDERS := $(if $(RESULT_KEYS),$(call ladders_of,$(RESULT_KEYS)))
$(foreach k,$(RESULT_KEYS),$(if $(filter $(k)=!,$(LADDERS)),\
	$(error $(RESULTS)/$(k): not a configuration key $(KEY_SHAPE))))
ifneq ($(RESULT_KEYS)$(COMPARE_KEYS),)
$(eval $(call track_flags,tsv,$(TSV_FLAGS),$(RESULTS)))
$(eval $(call track_flags,views,$(TABLE_FLAGS),$(RESULTS)))
endif
$(foreach k,$(RESULT_KEYS),$(eval $(call tsv_rule,$(k),$(call ladder_logs,$(k)),$(k)'s ladder)))
# compare_b<B>_<prec>: every framework that has logs of that batch and
# precision, side by side (nothing is run for it).
compare_runs = $(sort $(wildcard $(addprefix $(LOGDIR)/*/*_$(1:compare_%=%)/*.,log outcome)))
$(foreach k,$(COMPARE_KEYS),$(eval $(call tsv_rule,$(k),$(call compare_runs,$(k)),*_$(k:compare_%=%))))
# A run asked for itself, $(LOGDIR)/$(FRAMEWORK)/KEY/RUN.log (make maxbatch
# asks so), has its rule too.
LOG_GOAL_KEYS := $(sort $(patsubst $(LOGDIR)/$(FRAMEWORK)/%/,%,$(dir $(filter \
	$(LOGDIR)/$(FRAMEWORK)/%.log,$(MAKECMDGOALS)))))
$(foreach k,$(filter %=!,$(if $(LOG_GOAL_KEYS),$(call ladders_of,$(LOG_GOAL_KEYS)))),\
	$(error $(LOGDIR)/$(FRAMEWORK)/$(patsubst %=!,%,$(k)): not a configuration key $(KEY_SHAPE)))
ifeq ($(DLPERF_TREE),)
$(foreach k,$(sort $(LOG_GOAL_KEYS) $(foreach k,$(RESULT_KEYS),$(call ladder_from,$(k),$(LADDERS)))),\
	$(eval $(call run_rule,$(k))))
endif

# The views, for the results asked for: $(call asked,KEYS,.EXT).
asked = $(foreach k,$(1),$(RESULTS)/$(k)$(2))

# A result that holds runs which failed (their outcome lines in its .tsv)
# is made whole, with their rows, and then make fails: the recipe of the
# last file asked for that no other asked file needs (FINAL_GOAL: an .html
# before an .svg, before an .md, .json or .gp, before a .tsv) ends with
# view_status, which looks at the .tsv of every result asked for; that file
# waits for every other one asked, so that all are made first, under -j
# too. It stays (.PRECIOUS: it is whole), and while a result asked for has
# outcomes of its runs every make makes it again (FORCE), so every make
# says so.
FINAL_GOAL := $(lastword $(or $(filter %.html,$(RESULT_GOALS)),$(filter %.svg,$(RESULT_GOALS)),\
	$(filter %.md %.json %.gp,$(RESULT_GOALS)),$(RESULT_GOALS)))
ASKED_TSVS := $(sort $(addsuffix .tsv,$(basename $(RESULT_GOALS))))
view_status = $(if $(filter $@,$(FINAL_GOAL)),@bad=; total=0; for t in $(ASKED_TSVS); do \
	n=$$(grep -c '^# outcome ' "$$t" 2>/dev/null || true); [ "$${n:-0}" = 0 ] || \
	{ bad="$$bad $${t%.tsv}"; total=$$((total + n)); }; done; [ -z "$$bad" ] || \
	{ echo "make: $$total run(s) failed: OOM$(comma) failed or timeout in the table of$$bad" \
		"(RETRY=1 runs again those out of memory)" >&2; exit 1; })
ifneq ($(FINAL_GOAL),)
.PRECIOUS: $(FINAL_GOAL)
$(FINAL_GOAL): | $(filter-out $(FINAL_GOAL),$(RESULT_GOALS))
endif
failing_keys := $(foreach k,$(RESULT_KEYS),$(if $(wildcard $(patsubst %.log,%.outcome,\
	$(call ladder_logs,$(k)))),$(k))) $(foreach k,$(COMPARE_KEYS),$(if $(filter %.outcome,\
	$(call compare_runs,$(k))),$(k)))
ifneq ($(strip $(failing_keys)),)
$(FINAL_GOAL): FORCE
endif

# KEY.md and KEY.json: the ladder's table (PUBLISHED's column) and DLPerf's
# result JSON; compare_*.md: the frameworks side by side.
$(call asked,$(RESULT_KEYS),.md): $(RESULTS)/%.md: $(RESULTS)/%.tsv $(BIN)/table $(VIEW_DEPS)
	$(BIN)/table $(TABLE_FLAGS) $< $(to_tmp)
	@mv $@.tmp $@
	@cat $@
	$(call view_status)
$(call asked,$(RESULT_KEYS),.json): $(RESULTS)/%.json: $(RESULTS)/%.tsv $(BIN)/table $(VIEW_DEPS)
	$(BIN)/table -s json $(MFU_FLAGS) $< $(to_tmp)
	@mv $@.tmp $@
	@cat $@; echo
	$(call view_status)
$(call asked,$(COMPARE_KEYS),.md): $(RESULTS)/%.md: $(RESULTS)/%.tsv $(BIN)/table $(VIEW_DEPS)
	$(BIN)/table -s compare $(MFU_FLAGS) $< $(to_tmp)
	@mv $@.tmp $@
	@cat $@
	$(call view_status)

# KEY.gp: plot's gnuplot script, its data inline (.svg: gnuplot draws it,
# and a person can re-plot it by hand); compare_*.gp the frameworks side by
# side; KEY.html the page: table, plot inline, noise, environment, method.
$(call asked,$(RESULT_KEYS),.gp): $(RESULTS)/%.gp: $(RESULTS)/%.tsv $(BIN)/plot $(VIEW_DEPS)
	$(BIN)/plot $(PLOT_FLAGS) $< $(to_tmp)
	@mv $@.tmp $@
	$(call view_status)
$(call asked,$(COMPARE_KEYS),.gp): $(RESULTS)/%.gp: $(RESULTS)/%.tsv $(BIN)/plot
	$(BIN)/plot -s compare $< $(to_tmp)
	@mv $@.tmp $@
	$(call view_status)
$(call asked,$(RESULT_KEYS),.html): $(RESULTS)/%.html: $(RESULTS)/%.tsv $(RESULTS)/%.md \
		$(RESULTS)/%.svg $(BIN)/plot
	$(BIN)/plot -s page -t $(RESULTS)/$*.md -g $(RESULTS)/$*.svg $< $(to_tmp)
	@mv $@.tmp $@
	$(call view_status)

# ROOF=<file> not there yet: this CPU's roof, measured once by
# bin/perf-roof (a minute), never beside a run (the run lock).
ifneq ($(ROOF),)
$(ROOF): | $(BIN)/perf-roof
	@mkdir -p $(@D) $(LOGDIR)
	flock $(RUN_LOCK) $(BIN)/perf-roof $(to_tmp)
	@mv $@.tmp $@
endif

GNUPLOT := gnuplot
$(RESULTS)/%.svg: $(RESULTS)/%.gp
	$(GNUPLOT) $< $(to_tmp)
	@mv $@.tmp $@
	$(call view_status)

# ---- the default job ---------------------------------------------------
#
# `make` on a machine without a GPU: dependencies, the build, then a real
# table of bench on its CPU backend at a reduced image size, in a few
# minutes; its MFU column against this CPU's roof, measured once first.

DEMO_KEY := 1n2g_b16_fp32
DEMO_GOAL := results/quick/$(DEMO_KEY).md

default: deps
	@$(MAKE) --no-print-directory CUDA_QUIET=1 all
	@$(MAKE) --no-print-directory CUDA_QUIET=1 LOGDIR=logs/quick RESULTS=results/quick RUNS=3 \
		BENCH_ARGS='--image 64' ROOF=results/quick/roof.txt $(DEMO_GOAL)

.PHONY: default deps all clean FORCE
clean:
	rm -rf $(BIN) $(OBJ)

# `make maxbatch FRAMEWORK=fw KEY=<N>n<G>g_b<B>_<prec>`: the largest batch
# per device that fits N nodes of G devices, said in one line. From B it
# doubles while runs fit (halves while they run out of memory), then
# bisects between the largest that fit and the smallest that did not. Each
# probe is run 1 of its key, an ordinary run of the log tree: a log there
# already fits, an outcome there already ran out of memory (RETRY=1 runs it
# again). A probe that fails otherwise, or times out, stops the search.
maxbatch: $(BIN)/launch $(BIN)/outcome
	@[ -n "$(KEY)" ] || { echo "make maxbatch needs KEY=<N>n<G>g_b<B>_<prec>" >&2; exit 2; }
	@[ -z "$(DLPERF_TREE)" ] || { echo "make maxbatch: $(LOGDIR) is a DLPerf log tree, never run into" >&2; exit 2; }
	@key=$(call shq,$(KEY)); [[ $$key =~ ^$(KEY_PATTERN)$$ ]] || \
		{ echo "make maxbatch: KEY=$$key is not a configuration key $(KEY_SHAPE)" >&2; exit 2; }; \
	case=$${key%%_b*}; prec=$${key##*_}; b=$${key#*_b}; b=$${b%%_*}; lo=0; hi=0; \
	dir() { echo "$(LOGDIR)/$(FRAMEWORK)/$${case}_b$$1_$$prec"; }; \
	state() { if [ -e "$$(dir $$1)/1.log" ]; then echo fit; \
		elif grep -qs ' status=oom' "$$(dir $$1)/1.outcome"; then echo oom; else echo none; fi; }; \
	probe() { local s; s=$$(state $$1); [ $$s = fit ] || { [ $$s = oom ] && [ -z "$(RETRY)" ]; } || \
		{ $(MAKE) --no-print-directory "$$(dir $$1)/1.log" >&2 || true; s=$$(state $$1); }; echo $$s; }; \
	while :; do \
		case $$(probe $$b) in \
		fit) lo=$$b ;; oom) hi=$$b ;; \
		*) echo "make maxbatch: $(FRAMEWORK) $${case}_b$${b}_$$prec neither ran to its end nor ran" \
			"out of memory ($$(dir $$b)); no answer" >&2; exit 1 ;; \
		esac; \
		if [ $$hi = 0 ]; then b=$$((lo * 2 > $(KEY_PART_MAX) ? $(KEY_PART_MAX) : lo * 2)); \
		elif [ $$lo = 0 ]; then b=$$((hi / 2)); \
		else b=$$(((lo + hi) / 2)); fi; \
		[ $$b != $$lo ] && [ $$b != 0 ] || break; \
	done; \
	what="maxbatch: $(FRAMEWORK) $$case $$prec:"; \
	if [ $$lo = 0 ]; then echo "$$what even batch 1 runs out of memory"; exit 1; fi; \
	if [ $$hi = 0 ]; then echo "$$what batch $$lo fits, the largest a key holds"; \
	else echo "$$what the largest batch per device that fits is $$lo ($$hi runs out of memory)"; fi
.PHONY: maxbatch

# `make print-ladder KEY=4n8g_b128_fp32`: the keys a result of KEY reads.
print-ladder:
	@echo $(call ladder,$(KEY))
.PHONY: print-ladder

# The headers each object read (-MMD), for every object built so far.
-include $(shell find $(OBJ) -name "*.d" 2>/dev/null)
