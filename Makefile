# vidfx: everything goes through these targets; each installs what is missing first.
SHELL := /bin/bash
SWIFT ?= swift
ASAN_SCRATCH := .build-asan
export LSAN_OPTIONS := suppressions=$(CURDIR)/.lsan-suppressions:print_suppressions=0

.PHONY: setup build demo test test-unit test-asan bench clean testmedia

setup:
	@scripts/setup.sh

build: setup
	$(SWIFT) build -c release --product vidfx

## demo: probe a clip, then turn its 30 fps cadence into a contact sheet PNG via raw BGRA.
demo: build
	.build/release/vidfx probe testmedia/h264-24fps.mp4
	.build/release/vidfx dump testmedia/h264-24fps.mp4 --format bgra -o - --fps 4 \
	  | ffmpeg -v error -y -f rawvideo -pixel_format bgra -video_size 320x240 -framerate 4 -i - \
	      -vf tile=4x3 -frames:v 1 demo.png
	@echo "wrote demo.png (12 ticks at 4 fps of testmedia/h264-24fps.mp4)"

## test: the whole suite in debug (exclusivity checks on), then again under AddressSanitizer.
test: setup test-unit test-asan

test-unit:
	$(SWIFT) build --build-tests
	$(SWIFT) test

test-asan:
	$(SWIFT) test --sanitize=address --scratch-path $(ASAN_SCRATCH) 2>&1 \
	  | grep -v "Cannot export local symbol '__asan" ; exit $${PIPESTATUS[0]}

bench: build
	python3 bench/decode.py

testmedia:
	testmedia/make-testmedia.sh

clean:
	rm -rf .build $(ASAN_SCRATCH) demo.png bench/out
