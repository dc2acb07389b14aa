#include "base/demangle.h"

#include <gtest/gtest.h>

#include <string>

namespace gpuwhy {
namespace {

TEST(DemangleTest, MangledNamesDemangle) {
  EXPECT_EQ(Demangle("_ZN7deep_ep9intranode8dispatchILi8ELi768ELi8192EEEvPv"),
            "void deep_ep::intranode::dispatch<8, 768, 8192>(void*)");
  EXPECT_EQ(Demangle("_ZN7deep_ep9intranode15notify_dispatchEPKiPii"),
            "deep_ep::intranode::notify_dispatch(int const*, int*, int)");
  // A prefix "void " is kept once, not doubled.
  EXPECT_EQ(Demangle("void _ZN7deep_ep9intranode15notify_dispatchEPKiPii"),
            "void deep_ep::intranode::notify_dispatch(int const*, int*, int)");
  EXPECT_EQ(Demangle("void _ZN7deep_ep9internode7combineILi8EEEvPvi"),
            "void deep_ep::internode::combine<8>(void*, int)");
}

TEST(DemangleTest, CkTileKernelFromRocmTrace) {
  // Prefix of a real vLLM-on-MI300 kernel name (TraceLens graph_execution trace).
  const std::string mangled =
      "_ZN7ck_tile6kentryILi1ENS_12Rmsnorm2dFwdINS_27Rmsnorm2dFwdPipelineOnePassINS_27Rmsnorm2d"
      "FwdPipelineProblemIDF16bDF16bfDF16bDF16bDF16bffNS_19Generic2dBlockShapeINS_8sequenceIJLi"
      "1ELi3072EEEENS5_IJLi1ELi128EEEENS5_IJLi1ELi8EEEEEENS_18Rmsnorm2dFwdTraitsILb1ELb0ELb0ELb"
      "0ELNS_21Rmsnorm2dFusedAddEnumE0ELNS_23Rmsnorm2dFusedQuantEnumE0ELNS_22Rmsnorm2dSensitive"
      "EnumE0EEEEENS_33Rmsnorm2dFwdPipelineDefaultPolicyEEENS_17Default2DEpilogueINS_24Default2"
      "DEpilogueProblemIfDF16bLb0ELb1ELb0EEEvEEEEJNSM_5KargsEEEEvDpT1_";
  std::string d = Demangle(mangled);
  // libstdc++ >= 13 demangles it fully; older ones give the partial form.
  EXPECT_TRUE(d.starts_with("void ck_tile::kentry<1, ck_tile::Rmsnorm2dFwd<") ||
              d.starts_with("ck_tile::kentry<Rmsnorm2dFwd, Rmsnorm2dFwdPipelineOnePass, "))
      << d;
  EXPECT_NE(d.find("Rmsnorm2dFwdPipelineProblem"), std::string::npos) << d;
}

TEST(DemangleTest, PartialFormWhenTheDemanglerRejectsASymbol) {
  // Valid prefix, then a type code no demangler knows: the partial form.
  EXPECT_EQ(Demangle("_ZN2ck16tensor_operation6device12_GLOBAL__N_139kernel_grouped_conv_fwd_"
                     "xdl_cshuffle_v3INS_28GridwiseGemm_xdl_cshuffle_v3ILi128ELi16EEEQQ"),
            "ck::tensor_operation::device::(anonymous namespace)::kernel_grouped_conv_fwd_xdl_"
            "cshuffle_v3<GridwiseGemm_xdl_cshuffle_v3>");
  EXPECT_EQ(Demangle("_Z3fooQQ"), "foo");
  // Literals, substitutions and template parameters are not names.
  EXPECT_EQ(Demangle("_ZN7ck_tile6kentryILi128ENS_4ViewIS0_T1_Dv4_fEEQQ"), "ck_tile::kentry<View>");
  // Nothing readable: unchanged.
  EXPECT_EQ(Demangle("_ZQQ"), "_ZQQ");
  EXPECT_EQ(Demangle("_ZN99shortE"), "_ZN99shortE");
}

TEST(DemangleTest, OtherTextIsUnchanged) {
  for (std::string_view s :
       {"", "_Z", "ampere_sgemm_128x64_nn", "void at::native::reduce_kernel<512, 1>(int)",
        "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
        "deep_ep::intranode::notify_dispatch(int const*, int*, int)", "_Znot a symbol at all",
        "void ", "Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI32x32x8x1_SN"}) {
    EXPECT_EQ(Demangle(s), s);
  }
  EXPECT_FALSE(IsMangledName("_Z"));
  EXPECT_TRUE(IsMangledName("_ZN2ck3fooEv"));
  EXPECT_TRUE(IsMangledName("void _ZN2ck3fooEv"));
  EXPECT_FALSE(IsMangledName("void at::foo"));
  // Oversized input is returned as is, never handed to the demangler.
  std::string huge = "_ZN" + std::string(kMaxDemangleInput, 'a');
  EXPECT_EQ(Demangle(huge), huge);
}

TEST(DemangleTest, MemoDemanglesOncePerDistinctName) {
  DemangleMemo memo;
  const std::string a = "_ZN7deep_ep9internode7combineILi8EEEvPvi";
  std::string_view first = memo.Get(a);
  std::string_view again = memo.Get(std::string(a));
  EXPECT_EQ(first, "void deep_ep::internode::combine<8>(void*, int)");
  EXPECT_EQ(first.data(), again.data());  // same stored string
  EXPECT_EQ(memo.size(), 1u);
  const std::string plain = "volta_sgemm_128x64_nn";
  EXPECT_EQ(memo.Get(plain).data(), plain.data());  // not mangled: the input itself
  EXPECT_EQ(memo.size(), 1u);
}

TEST(DemangleTest, AbbreviateKeepsShortNamesAndElidesLongOnes) {
  EXPECT_EQ(AbbreviateSymbol("volta_sgemm_128x64_nn", 40), "volta_sgemm_128x64_nn");
  const std::string n =
      "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, "
      "at::detail::Array<char*, 3> >(int, at::native::AddFunctor<float>, "
      "at::detail::Array<char*, 3>)";
  EXPECT_EQ(AbbreviateSymbol(n, 200), n);
  // Parameter list first.
  EXPECT_EQ(AbbreviateSymbol(n, 110),
            "at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, "
            "at::detail::Array<char*, 3> >(…)");
  // Then nested template arguments.
  EXPECT_EQ(AbbreviateSymbol(n, 103),
            "at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<…>, "
            "at::detail::Array<…> >(…)");
  // Then all template arguments.
  EXPECT_EQ(AbbreviateSymbol(n, 60), "at::native::vectorized_elementwise_kernel<4, …>(…)");
  // Then leading namespaces.
  EXPECT_EQ(AbbreviateSymbol(n, 45), "vectorized_elementwise_kernel<4, …>(…)");
  EXPECT_EQ(AbbreviateSymbol(n, 39), "vectorized_elementwise_kernel<…>(…)");
  // Then a hard cut.
  std::string cut = AbbreviateSymbol(n, 20);
  EXPECT_LE(cut.size(), 20u);
  EXPECT_TRUE(cut.ends_with("\xE2\x80\xA6")) << cut;
  // "(anonymous namespace)" is a scope, not the parameter list.
  const std::string anon =
      "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 128, "
      "1>(float*, int)";
  EXPECT_EQ(AbbreviateSymbol(anon, 95),
            "at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 128, "
            "1>(…)");
  EXPECT_EQ(AbbreviateSymbol(anon, 70), "CatArrayBatchedCopy<float, …>(…)");
  // The first template argument names the work of a CK kernel.
  EXPECT_EQ(AbbreviateSymbol("ck_tile::kentry<Rmsnorm2dFwd, Rmsnorm2dFwdPipelineOnePass, "
                             "Rmsnorm2dFwdPipelineProblem, Generic2dBlockShape, sequence>",
                             45),
            "ck_tile::kentry<Rmsnorm2dFwd, …>");
  // A generic launcher keeps (the start of) the kernel it launches.
  EXPECT_EQ(AbbreviateSymbol("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_"
                             "align1>(cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align1::Params)",
                             40),
            "Kernel<cutlass_80_tensorop_s1688gemm_…");
  // Unbalanced brackets: only the hard cut applies.
  std::string odd = AbbreviateSymbol(std::string("a<<<") + std::string(100, 'b'), 30);
  EXPECT_LE(odd.size(), 30u);
}

}  // namespace
}  // namespace gpuwhy
