// SPDX-License-Identifier: LGPL-2.1-or-later
// CLAHE's band kernel, the apply pass of CLAHE on u8 planes, pairs and luma chunks: CLAHE of u8 planes (CH = 1) and
// Y/chroma pairs (CH = 2, p.lumaChannel mapped) with 16-byte aligned rows (claheBandsGray8), and of 4- and 3-channel
// u8 pixels in luma mode (claheBandsLuma8, CH = 4 or 3: Y mapped and RGB rebuilt around it by equalizedPixel, 4 or 16
// pixels per chunk, chunkPixels).
//
// Block (x, y) takes a strip of 32 chunks across and band y of p.bandRows rows. For the tile regions its pixels fall
// in (t of tilePosition, across and down) it stages one word per level: the four tiles' LUT bytes (l11, l12, l21, l22
// of the tile apply pass's blend()), so a pixel costs one shared load. Warp w walks rows w, w + 8, … of the band, one
// chunk per lane, with the chunk's column weights computed once. The arithmetic is blend()'s, bit for bit.
#include "histeq_device.cuh"
#include "../../common/byte_float.cuh"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace cudafilters::detail {
namespace {

constexpr int kBandWarps = kThreads / 32;

// saturateRound(v, 255) for 0 <= v < 2^22: adding 1.5 · 2^23 rounds to an integer, half to even, as cvt.rni does.
__device__ __forceinline__ unsigned roundToByte(float v) {
    return min(unsigned(__float_as_int(__fadd_rn(v, 12582912.0f)) - 0x4B400000), 255u);
}

// The block's strip (its first and last pixel columns), its band (first and last rows), and the tile regions they
// meet: `columns` across from columnFirst, `rows` down from rowFirst.
struct Band {
    int stripFirst, stripLast, bandFirst, bandLast;
    int columnFirst, columns, rowFirst, rows;
};

template <int PPC> __device__ __forceinline__ Band bandOfBlock(const HisteqParams& p) {
    Band b;
    b.stripFirst = blockIdx.x * 32 * PPC;
    b.stripLast = min(b.stripFirst + 32 * PPC, p.width) - 1;
    b.bandFirst = blockIdx.y * p.bandRows;
    b.bandLast = min(b.bandFirst + p.bandRows, p.height) - 1;
    b.columnFirst = tilePosition(b.stripFirst, p.invTileWidth).t;
    b.columns = tilePosition(b.stripLast, p.invTileWidth).t + 1 - b.columnFirst;
    b.rowFirst = tilePosition(b.bandFirst, p.invTileHeight).t;
    b.rows = tilePosition(b.bandLast, p.invTileHeight).t + 1 - b.rowFirst;
    return b;
}

// A pixel column's weights, and the offset of its region in its row of regions, in words.
struct BandColumn {
    float xa, xa1;
    int offset;
};
__device__ __forceinline__ BandColumn bandColumn(const HisteqParams& p, const Band& b, int xx) {
    const TilePosition tp = tilePosition(xx, p.invTileWidth);
    return BandColumn{tp.a, tp.a1, (tp.t - b.columnFirst) * 256};
}

// Row y's region row: its quads and weights.
struct BandRow {
    const unsigned* quads;
    float ya, ya1;
};

// Level v of a pixel in column c of the row blended from the four tiles' LUT bytes of its quad.
__device__ __forceinline__ unsigned blendQuad(const BandRow& row, const BandColumn& c, unsigned v) {
    const unsigned w = row.quads[c.offset + int(v)];
    const float top = __fadd_rn(__fmul_rn(byteAsFloat<0>(w), c.xa1), __fmul_rn(byteAsFloat<1>(w), c.xa));
    const float bottom = __fadd_rn(__fmul_rn(byteAsFloat<2>(w), c.xa1), __fmul_rn(byteAsFloat<3>(w), c.xa));
    return roundToByte(__fadd_rn(__fmul_rn(top, row.ya1), __fmul_rn(bottom, row.ya)));
}

// The quads of the band's regions into shared memory: word `region * 256 + v` holds level v of the region's four
// tiles (clamped to the grid).
__device__ __forceinline__ void stageQuads(const HisteqParams& p, const Band& b, unsigned* sQuads) {
    const std::uint8_t* luts = static_cast<const std::uint8_t*>(p.luts);
    for (int i = threadIdx.x; i < b.rows * b.columns * 256; i += kThreads) {
        const int v = i & 255, region = i >> 8;
        const int tx = b.columnFirst + region % b.columns, ty = b.rowFirst + region / b.columns;
        const int x1 = max(tx, 0), x2 = min(tx + 1, p.tilesX - 1);
        const int y1 = max(ty, 0), y2 = min(ty + 1, p.tilesY - 1);
        auto level = [&](int tileY, int tileX) { return unsigned(luts[(tileY * p.tilesX + tileX) * 256 + v]); };
        sQuads[i] = level(y1, x1) | level(y1, x2) << 8 | level(y2, x1) << 16 | level(y2, x2) << 24;
    }
}

template <int CH> __device__ __forceinline__ const std::uint8_t* bandSource(const HisteqParams& p, int x, int y) {
    return static_cast<const std::uint8_t*>(p.src) + std::size_t(y) * p.srcPitch + std::size_t(x) * CH;
}

// CH = 4 or 3: the lane's chunk of row y (q when full, else pixel by pixel to the row's end) stored equalized.
template <int CH, int PPC>
__device__ __forceinline__ void equalizeLumaChunk(const HisteqParams& p, const Band& b, const BandRow& row,
                                                  const BandColumn (&at)[PPC], bool full, int x, int y,
                                                  const ChunkData<CH>& q, std::uint8_t* out) {
    const WordOrder order = wordOrder(p);
    auto equalize = [&](const BandColumn& c, unsigned pixel) {
        return equalizedPixel<HisteqKind::Luma>(pixel, order, [&](int, int v) { return int(blendQuad(row, c, v)); });
    };
    if (full) {
        unsigned px[PPC];
#pragma unroll
        for (int j = 0; j < PPC; ++j) px[j] = equalize(at[j], chunkPixel<CH>(q, j));
        storeChunkAt<CH>(out, chunkOfPixels<CH>(px));
    } else {
        const std::uint8_t* in = bandSource<CH>(p, x, y);
        for (int j = 0; x + j < p.width; ++j)
            storePixel<CH>(out, j, equalize(bandColumn(p, b, x + j), loadPixel<CH>(in, j)));
    }
}

// CH = 1 or 2: the lane's chunk of row y, its mapped bytes (all, or p.lumaChannel's of the pairs) equalized.
template <int CH, int PPC>
__device__ __forceinline__ void equalizeByteChunk(const HisteqParams& p, const Band& b, const BandRow& row,
                                                  const BandColumn (&at)[PPC], bool full, int x, int y, const uint4& q,
                                                  std::uint8_t* out) {
    if (full) {
        const unsigned w[4] = {q.x, q.y, q.z, q.w};
        unsigned o[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            o[k] = w[k];
#pragma unroll
            for (int bt = 0; bt < 4; ++bt) {
                const int byte = k * 4 + bt;
                if (CH == 1 || byte % 2 == p.lumaChannel) {
                    const unsigned mapped = blendQuad(row, at[byte / CH], (w[k] >> (8 * bt)) & 0xffu);
                    o[k] = (o[k] & ~(0xffu << (8 * bt))) | (mapped << (8 * bt));
                }
            }
        }
        *reinterpret_cast<uint4*>(out) = make_uint4(o[0], o[1], o[2], o[3]);
    } else {
        const std::uint8_t* in = bandSource<CH>(p, x, y);
        for (int byte = 0; x + byte / CH < p.width; ++byte)
            if (CH == 1 || byte % 2 == p.lumaChannel)
                out[byte] = std::uint8_t(blendQuad(row, bandColumn(p, b, x + byte / CH), in[byte]));
            else out[byte] = in[byte];
    }
}

template <int CH> __device__ __forceinline__ void claheBands(const HisteqParams& p) {
    extern __shared__ unsigned sQuads[];
    constexpr int PPC = chunkPixels(CH);  // pixels per chunk
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const Band b = bandOfBlock<PPC>(p);

    const int x = b.stripFirst + lane * PPC;
    BandColumn at[PPC];
#pragma unroll
    for (int j = 0; j < PPC; ++j) at[j] = bandColumn(p, b, x + j);
    const bool full = x + PPC <= p.width;

    int y = b.bandFirst + warp;
    ChunkData<CH> next{};
    if (full && y <= b.bandLast) next = loadChunkAt<CH>(bandSource<CH>(p, x, y));  // plain loads: src may be dst

    // Launched as a programmatic dependent of the histogram kernel: its LUTs are read from
    // here on (the source is not what it writes).
    waitForPrerequisites();
    stageQuads(p, b, sQuads);
    __syncthreads();

    if (x >= p.width) return;
    for (; y <= b.bandLast; y += kBandWarps) {
        const ChunkData<CH> q = next;
        if (full && y + kBandWarps <= b.bandLast) next = loadChunkAt<CH>(bandSource<CH>(p, x, y + kBandWarps));
        const TilePosition tp = tilePosition(y, p.invTileHeight);
        const BandRow row{sQuads + (tp.t - b.rowFirst) * b.columns * 256, tp.a, tp.a1};
        std::uint8_t* out = static_cast<std::uint8_t*>(p.dst) + std::size_t(y) * p.dstPitch + std::size_t(x) * CH;
        if constexpr (CH >= 3) equalizeLumaChunk<CH, PPC>(p, b, row, at, full, x, y, q, out);
        else equalizeByteChunk<CH, PPC>(p, b, row, at, full, x, y, q, out);
    }
}

template <int CH> __global__ void __launch_bounds__(kThreads) claheBandsGray8(const HisteqParams p) {
    claheBands<CH>(p);
}

// the CLAHE luma chunk kernels (CH = 4 or 3).
template <int CH> __global__ void __launch_bounds__(kThreads) claheBandsLuma8(const HisteqParams p) { claheBands<CH>(p); }

void (*bandKernel(int channels))(HisteqParams) {
    return channels == 1   ? claheBandsGray8<1>
           : channels == 2 ? claheBandsGray8<2>
           : channels == 3 ? claheBandsLuma8<3>
                           : claheBandsLuma8<4>;
}

}  // namespace

void launchClaheBands(const HisteqParams& p, cudaStream_t stream) {
    const dim3 bands(claheBandStrips(p), (p.height + p.bandRows - 1) / p.bandRows);
    launchAfterHistogram(bandKernel(p.channels), bands, dim3(kThreads), p.bandSharedBytes, stream, p);
}

int claheBandSharedBytes(const HisteqParams& p, int bandRows) {
    const bool chunks = p.channels <= 2 ? p.vectorized : p.claheLumaChunks;
    if (!p.clahe || p.u16 || !chunks) return 0;
    return claheBandBytes(p.channels, p.tileWidth, p.tileHeight, p.tilesX, p.tilesY, bandRows);
}

int claheBandBytes(int channels, int tileWidth, int tileHeight, int tilesX, int tilesY, int bandRows) {
    // Tile regions (t of tilePosition) a span of n pixels meets, one more for the float rounding at the ends.
    auto regions = [](int n, int tile, int tiles) { return std::min((n - 1) / tile + 3, tiles + 1); };
    const int stripPixels = 32 * chunkPixels(channels);
    const int bytes =
        regions(stripPixels, tileWidth, tilesX) * regions(bandRows, tileHeight, tilesY) * 256 * int(sizeof(unsigned));
    return bytes <= kSharedLutLimit ? bytes : 0;
}

int claheBandBlocksPerSm(int channels, int sharedBytes) {
    int blocks = 0;
    CUDAFILTERS_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, bandKernel(channels), kThreads, sharedBytes));
    return std::max(blocks, 1);
}

int claheBandStrips(const HisteqParams& p) {
    const int n = chunkPixels(p.channels);
    return ((p.width + n - 1) / n + 31) / 32;
}

}  // namespace cudafilters::detail
