# vidfx: everything goes through these targets; each installs what is missing first.
SHELL := /bin/bash
SWIFT ?= swift
ASAN_SCRATCH := .build-asan
# The release CLI's pixel loops use AVX2 when the build machine has it (see Package.swift);
# `make build TARGET_CPU=` builds portable baseline x86-64 code instead.
TARGET_CPU ?= $(shell grep -qw avx2 /proc/cpuinfo 2>/dev/null && echo haswell)
RELEASE := .build-release
export LSAN_OPTIONS := suppressions=$(CURDIR)/.lsan-suppressions:print_suppressions=0
export ASAN_OPTIONS := suppressions=$(CURDIR)/.asan-suppressions
# This repository's own builds optimise the C pixel kernels in debug builds too (see
# Package.swift); a package that depends on vidfx never sets it.
export VIDFX_DEVELOP := 1

.PHONY: setup setup-test reference build install install-files docs deb demo test test-rules test-unit test-examples test-asan test-tsan test-fuzz test-deb test-load bench fuzz soak clean testmedia

## setup: what building and running vidfx need; setup-test: that and the test suite's tools
## and oracles (scripts/setup.sh --list run|test prints the packages of each).
setup:
	@scripts/setup.sh run

setup-test:
	@scripts/setup.sh test

# The face network is a library of its own, loaded by vidfx when faces are asked for.
FACENET := VidfxFaceNet

build: setup
	VIDFX_TARGET_CPU=$(TARGET_CPU) $(SWIFT) build -c release --product vidfx --scratch-path $(RELEASE)
	VIDFX_TARGET_CPU=$(TARGET_CPU) $(SWIFT) build -c release --product $(FACENET) --scratch-path $(RELEASE)
	@echo "built $(RELEASE)/release/vidfx$(if $(TARGET_CPU), (effects tuned for $(TARGET_CPU)))"

## install: the release binary, its man page (scripts/man-page.py: every command's own --help,
## so it cannot drift; non-ASCII as groff escapes with ASCII fallbacks) and bash/zsh/fish
## completions, under $(DESTDIR)$(PREFIX).
PREFIX ?= /usr/local
install: build
	$(MAKE) --no-print-directory install-files
	mkdir -p $(DESTDIR)$(PREFIX)/share/man/man1
	python3 scripts/man-page.py $(RELEASE)/release/vidfx > $(DESTDIR)$(PREFIX)/share/man/man1/vidfx.1
	mkdir -p $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	$(RELEASE)/release/vidfx --generate-completion-script bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/vidfx
	$(RELEASE)/release/vidfx --generate-completion-script zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_vidfx
	$(RELEASE)/release/vidfx --generate-completion-script fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/vidfx.fish
	@echo "installed vidfx, its face model, man page and completions under $(DESTDIR)$(PREFIX)"

## reference: docs/commands.md anew from every command's --help (a test compares them).
reference:
	$(SWIFT) build --product vidfx
	python3 scripts/command-reference.py .build/debug/vidfx > docs/commands.md

## docs: the libraries' API and articles (writing an effect, a sink; a thumbnail tool) as a
## static site in dist/docs, with swift-docc-plugin; any DocC warning fails it.
DOC_TARGETS := FrameCore MediaInput FrameSource Effects Sinks Detection Render
docs:
	rm -rf dist/docs && mkdir -p dist
	$(SWIFT) package --scratch-path .build-docs --allow-writing-to-directory dist/docs generate-documentation \
	  $(foreach t,$(DOC_TARGETS),--target $(t)) --enable-experimental-combined-documentation \
	  --transform-for-static-hosting --output-path dist/docs --warnings-as-errors
	@test -f dist/docs/index.html || { echo "docs: no site in dist/docs (see docc's output above)" >&2; exit 1; }
	@echo "wrote dist/docs (open dist/docs/index.html through a web server, or python3 -m http.server -d dist/docs)"

## deb: dist/vidfx_VERSION_amd64.deb, for machines without Swift: the portable binary with the
## Swift runtime linked in, the face network and model, man page and completions; Depends: on
## the runtime packages of the libraries it links (scripts/make-deb.sh).
deb: setup
	scripts/make-deb.sh

## test-deb: the .deb unpacked, run with PATH=/usr/bin:/bin and no toolchain (apply, HDR, codes, faces in
## crowd.jpg, the version), and as root installed with apt-get and removed (scripts/check-deb.sh).
test-deb: deb
	scripts/check-deb.sh

## install-files: what vidfx needs at run time, from the build in BIN_DIR: the binary, the
## face network library and the face model, laid out as vidfx looks for them (the tests
## install a test build this way to a scratch prefix).
BIN_DIR ?= $(RELEASE)/release
install-files:
	install -Dm755 $(BIN_DIR)/vidfx $(DESTDIR)$(PREFIX)/bin/vidfx
	install -Dm755 $(BIN_DIR)/lib$(FACENET).so $(DESTDIR)$(PREFIX)/lib/vidfx/lib$(FACENET).so
	install -Dm644 models/centerface.onnx $(DESTDIR)$(PREFIX)/share/vidfx/centerface.onnx

## demo: redact a street crossing's faces (before/after), render a redacted clip, read a QR code, render the gallery.
demo: build
	$(RELEASE)/release/vidfx probe testmedia/crowd.mp4
	$(RELEASE)/release/vidfx dump testmedia/crowd.jpg -e faceblur --format bgra -o - \
	  | ffmpeg -v error -y -f rawvideo -pixel_format bgra -video_size 800x564 -i - -i testmedia/crowd.jpg \
	      -filter_complex "[1:v]format=rgb24[a];[0:v]format=rgb24[b];[a][b]hstack" -frames:v 1 demo.png
	@echo "wrote demo.png: testmedia/crowd.jpg (a real street crossing) before and after faceblur"
	$(RELEASE)/release/vidfx apply testmedia/crowd.mp4 -e "faceblur,sepia:amount=0@0,0.8@2s" -o demo.mp4 -y --detections demo-faces.jsonl
	@echo "wrote demo.mp4 (faces redacted, a sepia fade in), demo-faces.jsonl (what was found, tick by tick) and demo.redaction.json (the redaction report)"
	$(RELEASE)/release/vidfx detect testmedia/qr-moving.mp4 --duration 0.2
	$(RELEASE)/release/vidfx effects --gallery demo-gallery.png -y --input testmedia/qr-moving.mp4 --at 1

## test: what CI runs, quickest checks first. The suite's rules (scripts/check-tests.sh), the
## example package built and run, the API docs built with no DocC warning, the .deb built and
## checked, the whole suite once, in a debug build under AddressSanitizer (exclusivity checks
## on too: a superset of the plain debug pass, which `make test-unit` runs on its own), then
## a fixed-seed fuzz of the ASan binary. The suite runs in two phases: every suite in parallel, except
## the suites that need the real clock (named *RealClockTests: real-time playback, network
## timeouts, terminals), which then run one test at a time, so that no other suite competes
## with them. Each phase has a hang limit (scripts/run-suite.sh), far above what it takes
## on a loaded machine, that stops it and names the tests still running; each program a test
## starts has one too (Tests/Support/Subprocess.swift).
test: setup-test test-rules test-examples docs test-deb test-asan test-fuzz

REALCLOCK := RealClockTests
# Hang limits of the two phases, in seconds (idle, under ASan: about 570 and 150).
PARALLEL_HANG_LIMIT ?= 2400
REALCLOCK_HANG_LIMIT ?= 1200
RUN_SUITE := scripts/run-suite.sh
# Drops ASan's noise about symbols it cannot export from the build's output.
ASAN_FILTER := grep --line-buffered -v "Cannot export local symbol '__asan"

test-rules:
	scripts/check-tests.sh

## test-unit: the suite in a plain debug build (faster than the ASan pass, for working on it).
test-unit: setup-test test-rules
	$(SWIFT) build --build-tests
	$(SWIFT) build --product $(FACENET)
	$(RUN_SUITE) $(PARALLEL_HANG_LIMIT) $(SWIFT) test --skip-build --parallel --skip $(REALCLOCK)
	$(RUN_SUITE) $(REALCLOCK_HANG_LIMIT) $(SWIFT) test --skip-build --no-parallel --filter $(REALCLOCK)

test-asan: setup-test
	$(SWIFT) build --build-tests --sanitize=address --scratch-path $(ASAN_SCRATCH) 2>&1 | $(ASAN_FILTER) ; exit $${PIPESTATUS[0]}
	$(SWIFT) build --product $(FACENET) --sanitize=address --scratch-path $(ASAN_SCRATCH) 2>&1 | $(ASAN_FILTER) ; exit $${PIPESTATUS[0]}
	$(RUN_SUITE) $(PARALLEL_HANG_LIMIT) $(SWIFT) test --skip-build --parallel --skip $(REALCLOCK) --sanitize=address --scratch-path $(ASAN_SCRATCH)
	$(RUN_SUITE) $(REALCLOCK_HANG_LIMIT) $(SWIFT) test --skip-build --no-parallel --filter $(REALCLOCK) --sanitize=address --scratch-path $(ASAN_SCRATCH)

## test-tsan: the library suites under ThreadSanitizer (not the CLI's, whose tests run the
## uninstrumented vidfx binary): every suite at once, then the real-clock ones one test at a
## time. Any report fails it; .tsan-suppressions lists what ThreadSanitizer cannot see. Not
## part of `make test` (a third build of the suite): run it now and then.
TSAN_SCRATCH := .build-tsan
TSAN_RUN := TSAN_OPTIONS="suppressions=$(CURDIR)/.tsan-suppressions halt_on_error=0"
TSAN_SUITES := (DetectionTests|EffectsTests|FrameCoreTests|FrameSourceTests|PlaybackTests|ScenesTests|SinksTests)\.
test-tsan: setup-test
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path $(TSAN_SCRATCH)
	$(TSAN_RUN) $(RUN_SUITE) $(PARALLEL_HANG_LIMIT) $(SWIFT) test --skip-build --parallel --sanitize=thread --scratch-path $(TSAN_SCRATCH) --filter '$(TSAN_SUITES)' --skip $(REALCLOCK)
	$(TSAN_RUN) $(RUN_SUITE) $(REALCLOCK_HANG_LIMIT) $(SWIFT) test --skip-build --no-parallel --sanitize=thread --scratch-path $(TSAN_SCRATCH) --filter '$(TSAN_SUITES).*$(REALCLOCK)'

## test-examples: Examples/Thumbnails, a package of its own that uses vidfx's library
## products, built and run on a test clip: by URL and version from a tagged scratch clone
## of this tree, as a user's package resolves it (SwiftPM then refuses any unsafe flag).
test-examples:
	scripts/check-consumer.sh

## test-fuzz: about 200 cases of bench/fuzz.py with a fixed seed through the ASan build
## (make test builds it); any crash, hang or sanitizer report fails. The time limit is a
## hang limit, far beyond what a case takes on a busy machine. The long fuzz: make fuzz.
FUZZ_CI_CASES ?= 200
FUZZ_CI_SEED ?= 2025
test-fuzz:
	python3 bench/fuzz.py --cases $(FUZZ_CI_CASES) --seed $(FUZZ_CI_SEED) --timeout 180 --binary $(ASAN_SCRATCH)/debug/vidfx

## test-load: the parallel phase twice while busy loops hold every core: green both times.
test-load: setup-test
	$(SWIFT) build --build-tests
	$(SWIFT) build --product $(FACENET)
	scripts/test-load.sh

bench: setup-test
	python3 bench/decode.py
	python3 bench/effects.py
	python3 bench/gif.py
	python3 bench/apply.py
	python3 bench/preview.py
	python3 bench/hdr.py
	python3 bench/deinterlace.py
	python3 bench/seek.py

## fuzz: mutated media and hostile command lines through the ASan build (bench/fuzz.py);
## CASES=… SEED=… to vary. Fails on any crash, hang or sanitizer report.
CASES ?= 1000
SEED ?= 1
fuzz: setup-test
	$(SWIFT) build --sanitize=address --scratch-path $(ASAN_SCRATCH) --product vidfx 2>&1 | $(ASAN_FILTER) ; exit $${PIPESTATUS[0]}
	$(SWIFT) build --sanitize=address --scratch-path $(ASAN_SCRATCH) --product $(FACENET) 2>&1 | $(ASAN_FILTER) ; exit $${PIPESTATUS[0]}
	python3 bench/fuzz.py --cases $(CASES) --seed $(SEED) --binary $(ASAN_SCRATCH)/debug/vidfx

testmedia:
	testmedia/make-testmedia.sh

clean:
	rm -rf .build .build-* demo.png bench/out
