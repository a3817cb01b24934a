// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// A 1-D grid of blocks each walking a strip of the frame down a segment of rows, where the strips whose source span
// reaches outside the row (strip 0, and those from rightEdge) cost more than the others: their blocks come first, row
// by row of segments, then the inner strips' (1 … rightEdge − 1). An SM starts the blocks it holds in grid order and
// issues the oldest warps first, so the longest blocks do not end last (timed with `bench-convolve --size 3840x2160
// --ks 15,31`, scripts/gpu/build-bench.sh).
#include <cudafilters/border.hpp>

#include <algorithm>

namespace cudafilters::cuda_detail {

struct EdgeFirstGrid {
    int rightEdge;    // the first strip at the right edge
    int edgeStrips;   // 1 + strips − rightEdge
    int segment;      // output rows per block of an inner strip
    int edgeSegment;  // of an edge strip
    int edgeBlocks;   // the edge strips' blocks
    int blocks;       // all of them
};

// Strips of stripWidth pixels whose source spans start lead pixels left of them and end lead pixels right of them:
// the first at the right edge (its span past the row's end), and how many edge strips there are with strip 0.
inline int rightEdgeStrip(int width, int stripWidth, int lead) {
    return std::clamp((width - lead) / stripWidth, 1, (width + stripWidth - 1) / stripWidth);
}
inline int edgeStripCount(int width, int stripWidth, int lead) {
    return 1 + (width + stripWidth - 1) / stripWidth - rightEdgeStrip(width, stripWidth, lead);
}

// Those strips cut into segments of `segment` rows (edgeSegment for the edge strips).
inline EdgeFirstGrid edgeFirstGrid(int width, int height, int stripWidth, int lead, int segment, int edgeSegment) {
    EdgeFirstGrid g{};
    const int strips = (width + stripWidth - 1) / stripWidth;
    g.rightEdge = rightEdgeStrip(width, stripWidth, lead);
    g.edgeStrips = edgeStripCount(width, stripWidth, lead);
    g.segment = segment;
    g.edgeSegment = edgeSegment;
    g.edgeBlocks = g.edgeStrips * ((height + g.edgeSegment - 1) / g.edgeSegment);
    g.blocks = g.edgeBlocks + (strips - g.edgeStrips) * ((height + g.segment - 1) / g.segment);
    return g;
}

struct GridPlace {
    int strip, y0, segment;
};

CUDAFILTERS_HD GridPlace placeBlock(const EdgeFirstGrid& g, int block) {
    if (block < g.edgeBlocks) {
        const int s = block / g.edgeStrips, e = block - s * g.edgeStrips;
        return {e == 0 ? 0 : g.rightEdge + e - 1, s * g.edgeSegment, g.edgeSegment};
    }
    const int i = block - g.edgeBlocks, inner = g.rightEdge - 1, s = i / inner;
    return {1 + i - s * inner, s * g.segment, g.segment};
}

}  // namespace cudafilters::cuda_detail
