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

const std::string kRange = "taps are 32-bit floats: 0, or a magnitude from 1.2e-38 to 3.4e38";

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

TEST(KernelText, RejectsNonNumbers) {
    EXPECT_EQ(errorOf("1 x 3"), "row 1 value 2 'x' is not a number; write taps in decimal (e.g. 16, -0.5, 1e-3)");
}

TEST(KernelText, RejectsTrailingGarbage) {
    EXPECT_EQ(errorOf("1 2a 3"), "row 1 value 2 '2a' is not a number; write taps in decimal (e.g. 16, -0.5, 1e-3)");
}

TEST(KernelText, RejectsNaN) { EXPECT_EQ(errorOf("1 nan 1"), "row 1 value 2 'nan' is not a finite number; " + kRange); }

TEST(KernelText, RejectsInfinity) { EXPECT_EQ(errorOf("1; -inf; 1"), "row 2 value 1 '-inf' is not a finite number; " + kRange); }

TEST(KernelText, RejectsOverflow) { EXPECT_EQ(errorOf("1e39"), "row 1 value 1 '1e39' is too large; " + kRange); }

TEST(KernelText, RejectsTooWide) {
    std::string row;
    for (int i = 0; i < 256; ++i) row += "1 ";
    EXPECT_EQ(errorOf(row), "kernel is 256 values wide (row 1); the largest supported size is 255x255: give at most 255 "
                            "values per row");
    EXPECT_EQ(errorOf("1 | " + row), "kernel 2 is 256 values wide (kernel 2 row 1); the largest supported size is "
                                     "255x255: give at most 255 values per row");
}

TEST(KernelText, RejectsTooTall) {
    std::string text;
    for (int i = 0; i < 256; ++i) text += "1;";
    text += "1";
    EXPECT_EQ(errorOf(text), "kernel has 257 rows; the largest supported size is 255x255: give at most 255 rows");
}

TEST(KernelText, RejectsBankOfMixedSizes) {
    EXPECT_EQ(errorOf("1 2 1 | 1 2; 3 4"),
              "kernel 2 is 2x2 but kernel 1 is 3x1; all kernels of a bank need one size");
}

TEST(KernelText, NamesKernelOfBankInErrors) {
    EXPECT_EQ(errorOf("1 2 | 1 y"), "kernel 2 row 1 value 2 'y' is not a number; write taps in decimal (e.g. 16, -0.5, "
                                    "1e-3)");
}

TEST(KernelText, CutsLongValuesInErrors) {
    EXPECT_EQ(errorOf("1 " + std::string(100000, 'x')),
              "row 1 value 2 '" + std::string(32, 'x') + "...' is not a number; write taps in decimal (e.g. 16, -0.5, 1e-3)");
}

TEST(KernelText, RejectsEmptyBankMember) { EXPECT_EQ(errorOf("1 2 |"), "kernel 2 row 1 is empty"); }

// Commas separate values one at a time: an empty value is refused, not skipped ("1,2,,3" is not "1 2 3").
TEST(KernelText, RejectsEmptyValues) {
    const std::string how = " is empty (two commas in a row, or a comma at the start or end of the row); separate "
                            "values by one comma or by spaces";
    EXPECT_EQ(errorOf("1,2,,3"), "row 1 value 3" + how);
    EXPECT_EQ(errorOf("1, ,2"), "row 1 value 2" + how);
    EXPECT_EQ(errorOf("1 2 3; 4 5 6,"), "row 2 value 4" + how);
    EXPECT_EQ(errorOf(",1"), "row 1 value 1" + how);
    EXPECT_EQ(errorOf("1 2 | 3 ,, 4"), "kernel 2 row 1 value 2" + how);
    EXPECT_EQ(parseKernelText("1 , 2,3").at(0).taps, (std::vector<float>{1, 2, 3}));
}

// strtod reads "0x10" as 16; kernel text is decimal only.
TEST(KernelText, RejectsHexadecimal) {
    EXPECT_EQ(errorOf("1 0x10"), "row 1 value 2 '0x10' is not a decimal number; write taps in decimal (e.g. 16, -0.5, "
                                 "1e-3)");
    EXPECT_EQ(errorOf("-0X1p3"), "row 1 value 1 '-0X1p3' is not a decimal number; write taps in decimal (e.g. 16, "
                                 "-0.5, 1e-3)");
}

// The range a float tap holds is stated and applied at both ends, the same for every spelling of a number.
TEST(KernelText, StatesTheRangeOfTaps) {
    EXPECT_EQ(errorOf("1e308"), "row 1 value 1 '1e308' is too large; " + kRange);
    EXPECT_EQ(errorOf("3.5e38"), "row 1 value 1 '3.5e38' is too large; " + kRange);
    EXPECT_EQ(errorOf("1" + std::string(99999, '0')), "row 1 value 1 '" + std::string("1") + std::string(31, '0') +
                                                          "...' is too large; " + kRange);
    EXPECT_EQ(errorOf("1e-300"), "row 1 value 1 '1e-300' is too close to 0; " + kRange + " (write 0 for a zero tap)");
    EXPECT_EQ(errorOf("-1e-320"), "row 1 value 1 '-1e-320' is too close to 0; " + kRange + " (write 0 for a zero tap)");
    EXPECT_EQ(errorOf("1e-39"), "row 1 value 1 '1e-39' is too close to 0; " + kRange + " (write 0 for a zero tap)");
    const auto taps = parseKernelText("3.4e38 -3.4e38 2e38 1.2e-38 0 0e-999 -0.0 +1.5 .5 5. 1E2").at(0).taps;
    EXPECT_EQ(taps, (std::vector<float>{3.4e38f, -3.4e38f, 2e38f, 1.2e-38f, 0.f, 0.f, 0.f, 1.5f, 0.5f, 5.f, 100.f}));
}
