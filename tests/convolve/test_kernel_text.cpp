// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cudafilters/error.hpp>
#include <cudafilters/kernel_text.hpp>

#include <gtest/gtest.h>

using namespace cudafilters;

namespace {

std::string errorOf(const std::string& text) {
    try {
        parseKernelText(text);
    } catch (const InvalidArgument& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(KernelText, ParsesRowsAndValues) {
    const auto kernels = parseKernelText("1 2 3; 4,5,6 ;7 , 8   9");
    ASSERT_EQ(kernels.size(), 1u);
    EXPECT_EQ(kernels[0].width, 3);
    EXPECT_EQ(kernels[0].height, 3);
    EXPECT_EQ(kernels[0].taps, (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(KernelText, ParsesBank) {
    const auto kernels = parseKernelText("-1 0 1; -2 0 2; -1 0 1 | -1 -2 -1; 0 0 0; 1 2 1");
    ASSERT_EQ(kernels.size(), 2u);
    EXPECT_EQ(kernels[1].taps, (std::vector<float>{-1, -2, -1, 0, 0, 0, 1, 2, 1}));
}

TEST(KernelText, ParsesNonSquareAndFractions) {
    const auto kernels = parseKernelText("0.25 0.5 0.25 1e-1");
    ASSERT_EQ(kernels.size(), 1u);
    EXPECT_EQ(kernels[0].width, 4);
    EXPECT_EQ(kernels[0].height, 1);
    EXPECT_FLOAT_EQ(kernels[0].taps[3], 0.1f);
}

TEST(KernelText, ForgivesTrailingSemicolon) { EXPECT_EQ(parseKernelText("1 2 1;").size(), 1u); }

TEST(KernelText, RoundTripsThroughFormat) {
    const auto kernels = parseKernelText("1 -2.5; 3 4 | 5 6; 7 8");
    EXPECT_EQ(parseKernelText(formatKernelText(kernels))[1].taps, kernels[1].taps);
}

TEST(KernelText, RejectsEmpty) { EXPECT_EQ(errorOf("  "), "kernel text is empty"); }

TEST(KernelText, RejectsRaggedRows) { EXPECT_EQ(errorOf("1 2 3; 4 5 6 7; 1 2 3"), "row 2 has 4 values, expected 3"); }

TEST(KernelText, RejectsEmptyRow) { EXPECT_EQ(errorOf("1 2;;3 4"), "row 2 is empty"); }

TEST(KernelText, RejectsNonNumbers) { EXPECT_EQ(errorOf("1 x 3"), "row 1 value 2 'x' is not a number"); }

TEST(KernelText, RejectsTrailingGarbage) { EXPECT_EQ(errorOf("1 2a 3"), "row 1 value 2 '2a' is not a number"); }

TEST(KernelText, RejectsNaN) { EXPECT_EQ(errorOf("1 nan 1"), "row 1 value 2 'nan' is not a finite number"); }

TEST(KernelText, RejectsInfinity) { EXPECT_EQ(errorOf("1; inf; 1"), "row 2 value 1 'inf' is not a finite number"); }

TEST(KernelText, RejectsOverflow) { EXPECT_EQ(errorOf("1e39"), "row 1 value 1 '1e39' is not a finite number"); }

TEST(KernelText, RejectsTooWide) {
    std::string row;
    for (int i = 0; i < 256; ++i) row += "1 ";
    EXPECT_EQ(errorOf(row), "is 256 values wide; the largest supported size is 255");
}

TEST(KernelText, RejectsTooTall) {
    std::string text;
    for (int i = 0; i < 256; ++i) text += "1;";
    text += "1";
    EXPECT_EQ(errorOf(text), "has 257 rows; the largest supported size is 255");
}

TEST(KernelText, RejectsBankOfMixedSizes) {
    EXPECT_EQ(errorOf("1 2 1 | 1 2; 3 4"),
              "kernel 2 is 2x2 but kernel 1 is 3x1; all kernels of a bank need one size");
}

TEST(KernelText, NamesKernelOfBankInErrors) {
    EXPECT_EQ(errorOf("1 2 | 1 y"), "kernel 2 row 1 value 2 'y' is not a number");
}

TEST(KernelText, CutsLongValuesInErrors) {
    EXPECT_EQ(errorOf("1 " + std::string(100000, 'x')), "row 1 value 2 '" + std::string(32, 'x') + "...' is not a number");
}

TEST(KernelText, RejectsEmptyBankMember) { EXPECT_EQ(errorOf("1 2 |"), "kernel 2 row 1 is empty"); }
