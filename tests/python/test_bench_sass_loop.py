"""bench/sass_loop.py: the steady-loop finder and listing parsers (on canned SASS text)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import sass_loop  # noqa: E402

# Two loops: an outer one (0x0010-0x00c0) holding an inner one (0x0030-0x0090) that issues
# both S (SS) and P V (RS, tnspB); a loop without HGMMAs after them.
SASS = """
        /*0000*/                   MOV R1, c[0x0][0x28] ;                 /* 0x000fe40000000f00 */
        /*0010*/                   S2R R0, SR_TID.X ;                     /* 0x000e220000002100 */
        /*0020*/                   HGMMA.64x128x16.F32.BF16 R88, gdesc[UR8], RZ, !UPT ;
        /*0030*/                   LDL.64 R152, [R1+0x18] ;
        /*0040*/                   HGMMA.64x128x16.F32.BF16 R88, gdesc[UR12], R88 ;
        /*0050*/                   HGMMA.64x128x16.F32.BF16 R24, R152, gdesc[UR8].tnspB, R24 ;
        /*0060*/                   BAR.ARV R200, 0x100 ;
        /*0070*/                   MUFU.EX2 R88, R88 ;
        /*0080*/                   STL [R1+0x4], R5 ;
        /*0090*/              @!P3 BRA 0x30 ;
        /*00a0*/                   IADD3 R4, R4, 0x1, RZ ;
        /*00b0*/                   ISETP.NE.AND P0, PT, R4, 0x3, PT ;
        /*00c0*/               @P0 BRA 0x10 ;
        /*00d0*/                   FADD R2, R2, 1 ;
        /*00e0*/               @P1 BRA 0xd0 ;
        /*00f0*/                   EXIT ;
"""


def test_the_innermost_loop_with_both_hgmma_kinds():
    body = sass_loop.steady_loop(sass_loop.parse_sass(SASS))
    assert (body[0][0], body[-1][0]) == (0x30, 0x90)
    assert sass_loop.loop_summary(body) == {"instructions": 7, "local": 2, "mufu": 1,
                                            "hgmma": 2}


def test_no_loop_without_both_kinds():
    ins = [x for x in sass_loop.parse_sass(SASS) if "tnspB" not in x[1]]
    assert sass_loop.steady_loop(ins) is None


def test_segments_count_instructions_between_marks():
    body = sass_loop.steady_loop(sass_loop.parse_sass(SASS))
    marks = sass_loop.segments(body)
    assert [(a, n) for a, _, n in marks] == [(0x60, 3), (0x90, 3)]


def test_local_accesses_with_their_source_lines():
    listing = """
        //## File "/src/cuda/sm90/fwd_kernel_sm90.h", line 657
        /*0730*/                   STL [R1+0x4], R10 ;
        /*0740*/                   IADD3 R4, R4, 0x1, RZ ;
        //## File "/src/cuda/common/pipeline.h", line 23
        /*0750*/                   LDL.LU R5, [R1+0x4] ;
"""
    assert sass_loop.local_lines(listing) == [
        (0x730, "STL [R1+0x4], R10", ("fwd_kernel_sm90.h", 657)),
        (0x750, "LDL.LU R5, [R1+0x4]", ("pipeline.h", 23)),
    ]


def test_spills_of_the_kernel():
    log = ("ptxas info    : Compiling entry function '_Z5otherv' for 'sm_90a'\n"
           "ptxas info    : Function properties for _Z5otherv\n"
           "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
           "ptxas info    : Compiling entry function '_ZN4amkl4cuda4sm9018attention_fwd_sm90I'\n"
           "ptxas info    : Function properties for _ZN4amkl4cuda4sm9018attention_fwd_sm90I\n"
           "    112 bytes stack frame, 196 bytes spill stores, 332 bytes spill loads\n")
    assert sass_loop.spills(log) == (112, 196, 332)


def test_the_loop_printout_names_counts_and_local_accesses(capsys):
    sass_loop.print_loop(sass_loop.steady_loop(sass_loop.parse_sass(SASS)), show_segments=True)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("steady loop 30-90: 7 instructions, 2 local accesses, 1 MUFU, 2 HGMMA")
    assert out[1].startswith("  30 LDL.64") and out[2].startswith("  80 STL")
    assert out[3] == "  60 BAR.ARV R200, 0x100  (+3)"
    sass_loop.print_loop(None, show_segments=False)
    assert capsys.readouterr().out == "no steady loop found\n"


def test_stall_counts_read_the_control_words():
    # Control words with stall counts 2 (FMNMX), 7 (FADD) and 1 (MUFU): bits 41-44 of the
    # second half, as cuobjdump prints it on the line after the instruction.
    listing = """
        /*c300*/                   FMNMX R8, R88, -INF , !PT ;        /* 0xff80000058087809 */
                                                                      /* 0x000fe40007800000 */
        /*c310*/                   FADD R21, R204, R93 ;              /* 0x0000005dcc157221 */
                                                                      /* 0x008fee0000000000 */
        /*c320*/                   MUFU.EX2 R99, R99 ;                /* 0x0000006300637308 */
                                                                      /* 0x000e620000000800 */
"""
    stalls = sass_loop.stall_counts(listing)
    assert stalls == {0xc300: 2, 0xc310: 7, 0xc320: 1}
    assert sass_loop.stall_summary(stalls, 0xc300, 0xc320) == (2, 9)
    assert sass_loop.stall_summary(stalls, 0xc310, 0xc400) == (2, 8)


def test_path_mix_counts_opcodes_over_the_ranges():
    # 0x30-0x60 and 0x90-0xa0: LDL, two HGMMA (S and P V), the guarded BRA; not BAR, MUFU, STL.
    ins = sass_loop.parse_sass(SASS)
    assert sass_loop.path_mix(ins, [(0x30, 0x60), (0x90, 0xa0)]) == {"LDL": 1, "HGMMA": 2,
                                                                       "BRA": 1}
    assert sass_loop.opcode("@!UP0 UIADD3 UR6, UR4, 0x80, URZ") == "UIADD3"


def test_print_paths_splits_uniform_from_vector(capsys):
    listing = """
        /*0100*/                   UIADD3 UR6, UR4, 0x80, URZ ;
        /*0110*/                   R2UR UR4, R88 ;
        /*0120*/               @P0 FADD R2, R2, 1 ;
"""
    sass_loop.print_paths(listing, ["100:130"])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "  path 100:130: 3 instructions, 2 vector, 1 uniform"
