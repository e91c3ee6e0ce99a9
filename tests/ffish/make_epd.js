#!/usr/bin/env node
// Writes the EPD perft files of tests/ffish/ (chess.epd, cannon10.epd, supremo.epd,
// superchess.epd) that the ffish_* ctests compare: fixed positions (start arrays with the
// inexpressible pieces removed, the rules files' worked examples that use only expressible
// pieces, castling and pool positions) and seeded random walks. Every count is Fairy-
// Stockfish's (npm ffish 0.7.10, tests/ffish/variants.ini), by push/pop perft; each
// position gets the deepest depth whose count stays within the leaf budget.
//
//   node tests/ffish/make_epd.js [VARIANT...]      (default: all four)
//
// The walks are deterministic: walk i of a variant uses a mulberry32 generator seeded
// with SEED + i, so a rerun writes the same files.
'use strict';

const fs = require('fs');
const path = require('path');
const { loadFfish, fromFfish, newBoard, perftAll, superchessPool } = require('./ffish_perft.js');

const SEED = 2026;

// mulberry32: a small deterministic generator whose streams for neighbouring seeds differ.
function rng(seed) {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

// The positions and walk settings of each variant. `fixed` entries are [comment, FEN]
// (a comment line starts a group); `walks` start from the listed FENs in turn.
const SPEC = {
    chess: {
        title: 'orthodox chess',
        maxDepth: 6,
        budget: 1000000,
        fixed: [
            ['# The start position and the published positions 2-6 of the Chessprogramming wiki ' +
                '"Perft Results" (also in tests/data/chess.epd):'],
            ['', 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'],
            ['', 'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1'],
            ['', '8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1'],
            ['', 'r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1'],
            ['', 'rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8'],
            ['', 'r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10'],
        ],
        walks: {
            count: 44,
            from: ['rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'],
            plies: [8, 80],
        },
    },
    cannon10: {
        title: 'cannon10 (rook, bishop, queen, xiangqi cannon, king, single-step pawn on 10x10)',
        maxDepth: 5,
        budget: 500000,
        fixed: [
            ['# The start position and two middle games of tests/data/supremo_cannon10.epd:'],
            ['', 'rcbbqkbbcr/pppppppppp/10/10/10/10/10/10/PPPPPPPPPP/RCBBQKBBCR w - - 0 1'],
            ['', 'r1bb1kbb1r/p1pppqpp2/8pp/1c3p4/9C/10/5P4/1PP2c3B/P1BQP1PP1P/R1B2KB1CR w - - 4 13'],
            ['', 'r1bbqkb1cr/pCpppp1p1p/6p2b/8B1/10/10/1c8/3P1P3C/P1P1PQPPPP/R2BK1BB1R b - - 8 9'],
            ['# Pawns one step from promotion (to Q, R, B or C, with and without capture):'],
            ['', '2r1k5/1P8/10/10/10/10/10/10/8p1/5K4 w - - 0 1'],
            ['', '5k4/1P8/10/10/10/10/10/10/1c6p1/C4K4 b - - 0 1'],
        ],
        walks: {
            count: 44,
            from: ['rcbbqkbbcr/pppppppppp/10/10/10/10/10/10/PPPPPPPPPP/RCBBQKBBCR w - - 0 1'],
            plies: [8, 90],
        },
    },
    supremo: {
        title: 'Supremo Superchess with the expressible pieces (K, Super General Q, Super Rook R, ' +
            'Super Bishop B, pawns; pawn start rank 3/8)',
        maxDepth: 5,
        budget: 500000,
        fixed: [
            ['# S30 (rules/supremo.md §2) without the inexpressible Super Knights, Terminators, ' +
                'Commandos and Protectors:'],
            ['', 'r1b1qk1b1r/2r1bb1r2/pppppppppp/10/10/10/10/PPPPPPPPPP/2R1BB1R2/R1B1QK1B1R w - - 0 1'],
            ['# Worked examples of rules/supremo.md §9 with only expressible pieces: T1, T6, T7, ' +
                'T7b, T14, T15:'],
            ['', '4b4k/10/4p5/10/10/4R5/10/10/10/K9 w - - 0 1'],
            ['', 'k9/2Q7/10/10/10/10/10/10/10/9K b - - 0 1'],
            ['', '4r4k/10/10/10/10/10/10/10/4P5/4K5 w - - 0 1'],
            ['', '4r4k/10/10/10/10/10/10/4P5/10/4K5 w - - 0 1'],
            ['', 'k3r5/10/10/10/10/10/3p6/4P5/4P5/4K5 w - - 0 1'],
            ['', 'k8R/10/K9/10/10/10/10/10/10/10 b - - 0 1'],
            ['# Hops over adjacent screens of both colours, double-screen blocks and hop checks:'],
            ['', '3k6/10/3p6/10/1B1r1Q4/3P6/10/3R6/10/3K6 w - - 0 1'],
            ['', 'q3k4r/10/10/4p5/10/10/4P5/10/4R5/4K4Q b - - 0 1'],
        ],
        walks: {
            count: 44,
            from: ['r1b1qk1b1r/2r1bb1r2/pppppppppp/10/10/10/10/PPPPPPPPPP/2R1BB1R2/R1B1QK1B1R w - - 0 1'],
            plies: [6, 70],
        },
    },
    superchess: {
        title: 'Superchess with Exchess set 2, expressible pieces (K, E, Q, R, B, N, Amazon A, ' +
            'Guard G, Baron O, pawns P, rapid pawns H, t-pawns T, mobilisation pawns L and ' +
            'Paratroopers X on the board); explicit pools (limit Q1 R2 B2 N2 G1 O1 minus the ' +
            "side's pieces on the board)",
        maxDepth: 5,
        budget: 500000,
        fixed: [
            ['# P0 and P1 (rules/superchess.md §2) without the Ambassador, Femme Fatale, Magician ' +
                'and the hands; P1 once with the King\'s and once with the Emperor\'s castling rights:'],
            ['', '1o1ek1ga/tthpphtt/8/8/8/8/TTHPPHTT/1O1EK1GA w - - 0 1'],
            ['', 'r2ek1gr/tthpphtt/8/8/8/8/TTHPPHTT/R2EK1GR w Ka,Kh,ka,kh - 0 1'],
            ['', 'r2ek1gr/tthpphtt/8/8/8/8/TTHPPHTT/R2EK1GR w Ea,Eh,ea,eh - 0 1'],
            ['# Worked examples of rules/superchess.md §9 with only expressible pieces: T1a, T1b, ' +
                'T2, T3\', T8a, T8c, T9, T13, T17; T12a and T12b once per castling monarch:'],
            ['', '7k/8/8/8/3E4/8/8/K7 w - - 0 1'],
            ['', '7k/8/8/3p4/3E4/8/8/K7 w - - 0 1'],
            ['', 'k3r3/8/8/8/3E4/8/8/4K3 w - - 0 1'],
            ['', '7k/8/8/8/8/8/8/K2q3E w - - 0 1'],
            ['', '7k/8/8/3P4/3G4/8/8/K7 w - - 0 1'],
            ['', '7k/8/8/3P4/3O4/8/8/K7 w - - 0 1'],
            ['', '7k/8/8/3N4/1pnTb3/8/1H4L1/K7 w - - 0 1'],
            ['', '7k/8/8/3pPh2/8/8/8/K7 w - d6 0 1'],
            ['', '8/8/4e3/8/8/4K3/8/8 w - - 0 1'],
            ['', '4k3/8/8/8/8/8/8/R2EK2R w Kh - 0 1'],
            ['', '4k3/8/8/8/8/8/8/R2EK2R w Ea - 0 1'],
            ['', '4k3/8/7b/8/8/8/8/R2EK2R w Kh - 0 1'],
            ['', '4k3/8/7b/8/8/8/8/R2EK2R w Ea - 0 1'],
            ['# Castling of each monarch on both wings for both sides, through and out of attack:'],
            ['', 'r2ek2r/8/8/8/8/8/8/R2EK2R w Ka,Kh,ka,kh - 0 1'],
            ['', 'r2ek2r/8/8/8/8/8/8/R2EK2R b Ea,Eh,ea,eh - 0 1'],
            ['', 'r3k2r/pppe1ppp/8/8/8/8/PPPE1PPP/R3K2R w Ka,Kh,ka,kh - 0 1'],
            ['', 'r2e3r/ppp1kppp/8/8/8/8/PPP1KPPP/R2E3R w Ea,Eh,ea,eh - 0 1'],
            ['', 'r2ek2r/8/8/8/2B5/8/8/R2EK2R b ka,kh - 0 1'],
            ['', 'r2ek2r/8/G7/8/8/8/8/R2EK2R b ea,eh - 0 1'],
            ['# Promotion pools (rules/superchess.md §6.5): T10\'s board without the hand (a leaping ' +
                't-pawn promotes); a rapid pawn promoting by a 2-square capture; nearly empty and empty ' +
                'pools, where pushes to the last rank are illegal until a capture refills the pool:'],
            ['', '7k/1p6/1T6/8/8/8/8/K7 w - - 0 1'],
            ['', '2r4k/8/4H3/8/8/8/8/K7 w - - 0 1'],
            ['', '4k3/1P5P/8/8/8/8/r7/QRRBBNNK w - - 0 1'],
            ['', 'qrrbbnnk/8/8/8/8/8/1p1h1t1l/R4K2 b - - 0 1'],
            ['', '4k3/1P6/8/8/8/2r5/GO6/QRRBBNNK w - - 0 1'],
            ['# Paratroopers and a rapid pawn on the board beside promoting pawns and t-pawns:'],
            ['', '3ek3/1P5T/X7/8/8/h7/1px4t/R3K2E w - - 0 1'],
        ],
        walks: {
            count: 48,
            from: [
                '1o1ek1ga/tthpphtt/8/8/8/8/TTHPPHTT/1O1EK1GA w - - 0 1',
                'r2ek1gr/tthpphtt/8/8/8/8/TTHPPHTT/R2EK1GR w Ka,Kh,ka,kh - 0 1',
                'r2ek1gr/tthpphtt/8/8/8/8/TTHPPHTT/R2EK1GR w Ea,Eh,ea,eh - 0 1',
                'rnbqkbnr/tthpphtt/8/8/8/8/TTHPPHTT/RNBEKBNR w - - 0 1',
                '1olek1ga/tthpphtt/8/5x2/5X2/8/TTHPPHTT/1OLEK1GA w - - 0 1',
            ],
            plies: [8, 90],
        },
    },
};

// A chessvar FEN from a fixed entry: Superchess FENs get the explicit pool field.
function chessvarFen(variant, fen) {
    if (variant !== 'superchess') return fen;
    return `${fen} ${superchessPool(fen.split(' ')[0])}`;
}

// The counts for depths 1..d of a position, d the deepest within the budget (and, for
// Supremo, without a promotion): null when no depth >= minDepth fits.
function chooseDepth(ff, variant, fen, spec, minDepth) {
    let best = null;
    for (let d = 1; d <= spec.maxDepth; d++) {
        const { board } = newBoard(ff, variant, fen);
        let counts;
        try {
            counts = perftAll(board, d, variant === 'supremo', spec.budget);
        } catch (e) {
            break; // over the budget, or a promotion within depth d (Supremo): keep d - 1
        } finally {
            board.delete();
        }
        best = counts;
        if (counts[d] === 0) break;
    }
    return best && best.length - 1 >= minDepth ? best : null;
}

// A random walk from `from` with the generator `rand`: plies in [lo, hi]; half of the
// moves are captures when there are any, so material changes and pools refill.
function randomWalk(ff, variant, from, rand, lo, hi) {
    const { board, ffVariant } = newBoard(ff, variant, from);
    try {
        const plies = lo + Math.floor(rand() * (hi - lo + 1));
        for (let i = 0; i < plies; i++) {
            const moves = board.legalMoves().split(' ').filter((x) => x);
            if (!moves.length) return null;
            const captures = moves.filter((m) => board.isCapture(m));
            const pool = captures.length && rand() < 0.5 ? captures : moves;
            board.push(pool[Math.floor(rand() * pool.length)]);
        }
        if (!board.legalMoves().trim()) return null;
        return fromFfish(ffVariant, board.fen());
    } finally {
        board.delete();
    }
}

// Superchess: special moves in the tree of perft(depth), counted by walking it: castlings
// of K and of E, promotions, and promotions to a type whose pool was empty at the root
// (so a capture on the way refilled it).
function superchessStats(ff, fen, depth, stats) {
    const { board, ffVariant } = newBoard(ff, 'superchess', fen);
    const f = fen.split(' ');
    const rootPool = f[6].split('/').map((h) => (h === '-' ? '' : h.toLowerCase()));
    const rootSide = f[1] === 'w' ? 0 : 1;
    const castle = /^(e1g1|e1c1|d1b1|d1f1|e8g8|e8c8|d8b8|d8f8)$/;
    const walk = (ply) => {
        const moves = board.legalMoves().split(' ').filter((x) => x);
        const side = (rootSide + ply) % 2;
        for (const mv of moves) {
            if (castle.test(mv) && board.sanMove(mv).startsWith('O-O')) {
                stats[ffVariant === 'superchess-ecastle' ? 'castleE' : 'castleK']++;
            }
            if (/[a-z]$/.test(mv)) {
                stats.promotions++;
                if (!rootPool[side].includes(mv[mv.length - 1])) stats.refilled++;
            }
            if (ply + 1 < depth) {
                board.push(mv);
                walk(ply + 1);
                board.pop();
            }
        }
    };
    try {
        walk(0);
    } finally {
        board.delete();
    }
}

// One EPD line: FEN ;D1 n ;D2 n ...
function epdLine(fen, counts) {
    return fen + counts.slice(1).map((n, i) => ` ;D${i + 1} ${n}`).join('');
}

// Write tests/ffish/VARIANT.epd.
function makeVariant(ff, variant) {
    const spec = SPEC[variant];
    const out = [
        `# ${variant}: ${spec.title}.`,
        '# Source of every number: Fairy-Stockfish 230826 LB (npm package ffish 0.7.10) with',
        '# tests/ffish/variants.ini, perft by push/pop, written by `node tests/ffish/make_epd.js`',
        `# (seed ${SEED}); each position at the deepest depth within ${spec.budget} leaves. The ctest`,
        `# ffish_${variant} recounts them with ffish and with \`chessvar suite --variant ${variant}\`.`,
    ];
    let leaves = 0;
    let n = 0;
    const stats = { castleK: 0, castleE: 0, promotions: 0, refilled: 0 };
    const lines = [];
    for (const [comment, fen] of spec.fixed) {
        if (comment) out.push(comment);
        if (!fen) continue;
        const cfen = chessvarFen(variant, fen);
        const counts = chooseDepth(ff, variant, cfen, spec, 1);
        if (!counts) throw new Error(`${variant}: no depth fits for ${cfen}`);
        out.push(epdLine(cfen, counts));
        lines.push([cfen, counts.length - 1]);
        leaves += counts[counts.length - 1];
        n++;
    }
    const w = spec.walks;
    out.push(
        `# Seeded random walks: walk i starts from the start FEN number i mod ${w.from.length} below,`,
        `# uses mulberry32 seeded with ${SEED} + i, plays ${w.plies[0]}-${w.plies[1]} random legal plies ` +
            '(a capture half of the time when there is one);',
        '# walks that end the game, or whose position has no depth >= 3 within the budget, are skipped.'
    );
    w.from.forEach((f, i) => out.push(`#   start ${i}: ${chessvarFen(variant, f)}`));
    let made = 0;
    for (let i = 0; made < w.count; i++) {
        if (i > w.count * 20) throw new Error(`${variant}: too many walks skipped`);
        const rand = rng(SEED + i);
        const from = chessvarFen(variant, w.from[i % w.from.length]);
        const fen = randomWalk(ff, variant, from, rand, w.plies[0], w.plies[1]);
        if (!fen) continue;
        const counts = chooseDepth(ff, variant, fen, spec, 3);
        if (!counts) continue;
        out.push(epdLine(fen, counts));
        lines.push([fen, counts.length - 1]);
        leaves += counts[counts.length - 1];
        made++;
        n++;
    }
    if (variant === 'superchess') {
        for (const [fen, d] of lines) superchessStats(ff, fen, d, stats);
        out.splice(
            5,
            0,
            `# The trees of these ${n} positions hold ${stats.castleK} castlings of the King, ` +
                `${stats.castleE} of the Emperor and ${stats.promotions} promotions,`,
            `# ${stats.refilled} of them to a type whose pool was empty at the root (refilled by a capture).`
        );
    }
    const file = path.join(__dirname, `${variant}.epd`);
    fs.writeFileSync(file, out.join('\n') + '\n');
    console.log(`${file}: ${n} positions, ${leaves} leaves at the deepest depths`);
}

// Command line entry point (see the header).
async function main(argv) {
    const ff = await loadFfish();
    const variants = argv.length ? argv : Object.keys(SPEC);
    for (const v of variants) {
        if (!SPEC[v]) throw new Error(`unknown variant ${v}`);
        makeVariant(ff, v);
    }
}

main(process.argv.slice(2)).catch((e) => {
    console.error(`make_epd: ${e.message}`);
    process.exit(1);
});
