#!/usr/bin/env node
// Perft with Fairy-Stockfish (the pinned npm package ffish, WebAssembly) on chessvar's
// variants as tests/ffish/variants.ini expresses them, and its comparison with chessvar.
//
//   node ffish_perft.js check VARIANT FILE.epd CHESSVAR   ffish and `chessvar suite` on
//        every line of an EPD file (counts stored in it); a count where the two differ is
//        localised by divide (below). Exit 1 on any difference.
//   node ffish_perft.js divide VARIANT FEN DEPTH [CHESSVAR]   ffish's divide; with
//        CHESSVAR, descend by `chessvar perft --divide` into the first root move whose
//        counts differ, down to the move lists of one position.
//   node ffish_perft.js perft VARIANT FEN DEPTH   ffish's counts for depths 1..DEPTH.
//   node ffish_perft.js perftree VARIANT DEPTH FEN [MOVES]   ffish as a perftree engine
//        (`move count` lines, a blank line, the total) after the space-separated MOVES,
//        for `chessvar verify --protocol perftree --engine "node ffish_perft.js perftree V"`.
//
// VARIANT is chessvar's name: chess, cannon10, supremo or superchess. FEN is chessvar's
// FEN (for Superchess with the explicit pool field); it is turned into Fairy-Stockfish's
// FEN and variant here (toFfish), and back (fromFfish).
'use strict';

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

// Load ffish and our variants file. The Emscripten glue of ffish 0.7.10 fetches the .wasm
// with `fetch` when it exists (it does in Node 18+) and fails on a file path, so remove
// fetch first; then it reads the file, and the runtime is ready at onRuntimeInitialized.
async function loadFfish() {
    const pinned = require('./package.json').dependencies.ffish;
    const installed = require('ffish/package.json').version;
    if (installed !== pinned) {
        throw new Error(`ffish ${installed} is installed, ${pinned} is pinned: run npm ci in tests/ffish`);
    }
    delete globalThis.fetch;
    const ff = require('ffish');
    if (!ff.calledRun || !ff.Board) {
        await new Promise((resolve) => {
            ff.onRuntimeInitialized = resolve;
        });
    }
    ff.loadVariantConfig(fs.readFileSync(path.join(__dirname, 'variants.ini'), 'utf8'));
    return ff;
}

// Superchess: promotion limits of variants.ini (pool = limit - own pieces on the board)
// and the letters Fairy-Stockfish cannot express.
const SC_LIMIT = { q: 1, r: 2, b: 2, n: 2, g: 1, o: 1 };
const SC_INEXPRESSIBLE = 'mfdw';

// Split a board field into its ranks and count each piece letter on it.
function boardCounts(board) {
    const counts = {};
    for (const ch of board) {
        if (/[a-zA-Z]/.test(ch)) counts[ch] = (counts[ch] || 0) + 1;
    }
    return counts;
}

// The explicit pool chessvar reads for a Superchess board: limit - on board, per side.
function superchessPool(board) {
    const counts = boardCounts(board);
    const sides = [];
    for (const upper of [true, false]) {
        let s = '';
        for (const t of Object.keys(SC_LIMIT)) {
            const letter = upper ? t.toUpperCase() : t;
            const n = SC_LIMIT[t] - (counts[letter] || 0);
            if (n < 0) {
                throw new Error(`more ${letter} on the board than the promotion limit ${SC_LIMIT[t]}`);
            }
            s += letter.repeat(n);
        }
        sides.push(s || '-');
    }
    return sides.join('/');
}

// Parse a chessvar pool field (`QRR/qb`, `-/-`) into counts per side and lower-case type.
function parsePool(field) {
    const halves = field.split('/');
    if (halves.length !== 2) throw new Error(`bad pool field '${field}'`);
    return halves.map((h) => {
        const c = {};
        if (h !== '-') {
            for (const ch of h.toLowerCase()) c[ch] = (c[ch] || 0) + 1;
        }
        return c;
    });
}

// chessvar FEN -> { variant, fen } for Fairy-Stockfish, or an Error saying why the
// position cannot be expressed.
function toFfish(variant, fen) {
    const f = fen.trim().split(/\s+/);
    if (variant !== 'superchess') {
        if (f.length !== 6) throw new Error(`expected a six-field FEN: '${fen}'`);
        return { variant, fen: f.join(' ') };
    }
    if (f.length !== 7) {
        throw new Error(`Superchess FEN needs the explicit pool field (7 fields): '${fen}'`);
    }
    const m = /^([^[\]]*)(?:\[([^\]]*)\])?$/.exec(f[0]);
    if (!m) throw new Error(`bad board field '${f[0]}'`);
    const board = m[1];
    if (m[2]) throw new Error(`hand [${m[2]}]: drops are not expressible`);
    for (const ch of board.toLowerCase()) {
        if (SC_INEXPRESSIBLE.includes(ch)) throw new Error(`piece '${ch}' is not expressible`);
    }
    const want = parsePool(superchessPool(board));
    const have = parsePool(f[6]);
    for (const side of [0, 1]) {
        for (const t of [...Object.keys(SC_LIMIT), ...SC_INEXPRESSIBLE]) {
            if ((want[side][t] || 0) !== (have[side][t] || 0)) {
                throw new Error(
                    `pool '${f[6]}' is not limit - on board ('${superchessPool(board)}'), so ` +
                        'Fairy-Stockfish cannot express it'
                );
            }
        }
    }
    let monarch = null;
    let castling = '';
    if (f[2] !== '-') {
        const map = {};
        for (const tok of f[2].split(',')) {
            const t = /^([KkEe])([ah])$/.exec(tok);
            if (!t) throw new Error(`bad castling token '${tok}'`);
            const mon = t[1].toLowerCase();
            if (monarch && monarch !== mon) {
                throw new Error('castling rights of both monarchs: one castling monarch per ffish variant');
            }
            monarch = mon;
            const white = t[1] === t[1].toUpperCase();
            const ch = t[2] === 'h' ? 'K' : 'Q';
            map[white ? ch : ch.toLowerCase()] = true;
        }
        castling = ['K', 'Q', 'k', 'q'].filter((c) => map[c]).join('');
    }
    const ffVariant = monarch === 'k' ? 'superchess-kcastle' : monarch === 'e' ? 'superchess-ecastle' : 'superchess';
    return { variant: ffVariant, fen: [board, f[1], castling || '-', f[3], f[4], f[5]].join(' ') };
}

// Fairy-Stockfish FEN of `ffVariant` -> chessvar FEN.
function fromFfish(ffVariant, fen) {
    const f = fen.trim().split(/\s+/).slice(0, 6);
    if (!ffVariant.startsWith('superchess')) return f.join(' ');
    const board = f[0].replace(/\[.*\]$/, '');
    const tokens = [];
    if (f[2] !== '-') {
        const mon = ffVariant === 'superchess-ecastle' ? 'E' : 'K';
        const order = { K: [0, 'h'], Q: [0, 'a'], k: [1, 'h'], q: [1, 'a'] };
        for (const c of f[2]) {
            if (!order[c]) throw new Error(`unexpected castling field '${f[2]}'`);
            const [black, file] = order[c];
            tokens.push((black ? mon.toLowerCase() : mon) + file);
        }
        // writers' order (rules §7): Ka,Kh,Ea,Eh,ka,kh,ea,eh
        tokens.sort((a, b) => {
            const key = (t) => (t[0] === t[0].toLowerCase() ? 4 : 0) + ('Ee'.includes(t[0]) ? 2 : 0) + (t[1] === 'h' ? 1 : 0);
            return key(a) - key(b);
        });
    }
    return [board, f[1], tokens.join(',') || '-', f[3], f[4], f[5], superchessPool(board)].join(' ');
}

// True if a move string of Fairy-Stockfish is a promotion (a piece letter at the end).
function isPromotion(move) {
    return /[a-z]$/.test(move);
}

// Perft of every depth 1..depth in one traversal by push/pop: counts[d] = nodes at ply d.
// With noPromotion, a promotion anywhere in the tree is an error (Supremo: promotion to
// N T C S is not expressible). With limit, more than `limit` leaves is an error too.
function perftAll(board, depth, noPromotion, limit = Infinity) {
    const counts = new Array(depth + 1).fill(0);
    counts[0] = 1;
    // walk(ply): the board is at ply `ply` < depth; add its children to counts[ply + 1]
    const walk = (ply) => {
        if (ply === depth - 1 && !noPromotion) {
            counts[depth] += board.numberLegalMoves();
            if (counts[depth] > limit) throw new RangeError(`more than ${limit} leaves`);
            return;
        }
        const moves = board.legalMoves().split(' ').filter((x) => x);
        counts[ply + 1] += moves.length;
        if (noPromotion) {
            const promo = moves.find(isPromotion);
            if (promo) throw new Error(`promotion ${promo} after [${board.moveStack()}]: not expressible here`);
        }
        if (counts[depth] > limit) throw new RangeError(`more than ${limit} leaves`);
        if (ply + 1 === depth) return;
        for (const mv of moves) {
            board.push(mv);
            walk(ply + 1);
            board.pop();
        }
    };
    if (depth > 0) walk(0);
    return counts;
}

// A Fairy-Stockfish board for a chessvar FEN; the caller deletes it.
function newBoard(ff, variant, fen) {
    const t = toFfish(variant, fen);
    if (ff.validateFen(t.fen, t.variant) !== 1) {
        throw new Error(`Fairy-Stockfish rejects '${t.fen}' (${t.variant})`);
    }
    return { board: new ff.Board(t.variant, t.fen, false), ffVariant: t.variant };
}

// ffish's perft counts (index = depth) of a chessvar FEN.
function ffishPerft(ff, variant, fen, depth) {
    const { board } = newBoard(ff, variant, fen);
    try {
        return perftAll(board, depth, variant === 'supremo');
    } finally {
        board.delete();
    }
}

// ffish's divide: Map move -> perft(depth - 1) of the position after it (and after the
// moves of `played` first).
function ffishDivide(ff, variant, fen, depth, played = []) {
    const { board } = newBoard(ff, variant, fen);
    const out = new Map();
    try {
        for (const mv of played) {
            if (!board.push(mv)) throw new Error(`ffish cannot play ${mv} after [${board.moveStack()}]`);
        }
        for (const mv of board.legalMoves().split(' ').filter((x) => x)) {
            board.push(mv);
            out.set(mv, depth > 1 ? perftAll(board, depth - 1, variant === 'supremo')[depth - 1] : 1);
            board.pop();
        }
    } finally {
        board.delete();
    }
    return out;
}

// chessvar's divide: Map move -> count, from `chessvar perft --divide`.
function chessvarDivide(bin, variant, fen, depth) {
    const text = execFileSync(
        bin,
        ['perft', '--variant', variant, '--fen', fen, '--depth', String(depth), '--divide', '--threads', '1', '--quiet'],
        { encoding: 'utf8' }
    );
    const out = new Map();
    for (const line of text.split('\n')) {
        const m = /^(\S+): (\d+)$/.exec(line.trim());
        if (m) out.set(m[1], Number(m[2]));
    }
    return out;
}

// The chessvar FEN after `move` from `fen`, played by Fairy-Stockfish.
function fenAfter(ff, variant, fen, move) {
    const { board, ffVariant } = newBoard(ff, variant, fen);
    try {
        if (!board.push(move)) throw new Error(`ffish cannot play ${move} in '${fen}'`);
        return fromFfish(ffVariant, board.fen());
    } finally {
        board.delete();
    }
}

// Descend from a position whose perft(depth) differs between ffish and chessvar into the
// first root move whose counts differ, until a position whose move lists differ. Returns
// report lines: the path of moves, each position's FEN, and the moves only one side has.
function localise(ff, bin, variant, fen, depth) {
    const lines = [];
    const pathMoves = [];
    for (let d = depth; d >= 1; d--) {
        const a = ffishDivide(ff, variant, fen, d);
        const b = chessvarDivide(bin, variant, fen, d);
        const onlyF = [...a.keys()].filter((m) => !b.has(m));
        const onlyC = [...b.keys()].filter((m) => !a.has(m));
        lines.push(`  after [${pathMoves.join(' ')}]: ${fen} (depth ${d})`);
        if (onlyF.length || onlyC.length) {
            lines.push(`    moves only ffish generates: ${onlyF.join(' ') || '-'}`);
            lines.push(`    moves only chessvar generates: ${onlyC.join(' ') || '-'}`);
            return lines;
        }
        const diff = [...a.keys()].find((m) => a.get(m) !== b.get(m));
        if (diff === undefined) {
            lines.push('    divides agree here (a difference that depends on the path?)');
            return lines;
        }
        lines.push(`    ${diff}: ffish ${a.get(diff)}, chessvar ${b.get(diff)}`);
        pathMoves.push(diff);
        fen = fenAfter(ff, variant, fen, diff);
    }
    lines.push('    same move lists but different counts: check the counting itself');
    return lines;
}

// Parse an EPD perft file: [{ line, fen, depths: {d: n} }].
function readEpd(file) {
    const out = [];
    fs.readFileSync(file, 'utf8')
        .split('\n')
        .forEach((text, i) => {
            const s = text.trim();
            if (!s || s.startsWith('#')) return;
            const parts = s.split(';').map((p) => p.trim());
            const depths = {};
            for (const p of parts.slice(1)) {
                const m = /^D(\d+)\s+(\d+)$/.exec(p);
                if (m) depths[Number(m[1])] = Number(m[2]);
                else throw new Error(`${file}:${i + 1}: unexpected field '${p}'`);
            }
            out.push({ line: i + 1, fen: parts[0], depths });
        });
    return out;
}

// chessvar's counts for every line and depth of an EPD file, from one `chessvar suite`.
function chessvarSuite(bin, variant, file) {
    let text;
    try {
        text = execFileSync(bin, ['suite', file, '--variant', variant, '--threads', '1', '--json'], {
            encoding: 'utf8',
            maxBuffer: 64 << 20,
        });
    } catch (e) {
        if (e.status !== 1 || !e.stdout) throw e; // 1: some count differs from the file
        text = e.stdout;
    }
    const out = new Map();
    for (const s of text.split('\n')) {
        if (!s.trim()) continue;
        const r = JSON.parse(s);
        if (r.summary) continue;
        out.set(`${r.line}:${r.depth}`, r.nodes);
    }
    return out;
}

// The ctest: every count of the file by ffish, by chessvar and as stored must agree.
async function check(variant, file, bin) {
    const ff = await loadFfish();
    const positions = readEpd(file);
    const t0 = Date.now();
    const cv = chessvarSuite(bin, variant, file);
    let passed = 0;
    let failed = 0;
    let leaves = 0;
    for (const p of positions) {
        const maxD = Math.max(...Object.keys(p.depths).map(Number));
        let counts;
        try {
            counts = ffishPerft(ff, variant, p.fen, maxD);
        } catch (e) {
            console.log(`FAIL  line ${p.line}  ${p.fen}: ${e.message}`);
            failed++;
            continue;
        }
        const bad = [];
        for (const d of Object.keys(p.depths).map(Number)) {
            const c = cv.get(`${p.line}:${d}`);
            if (counts[d] !== p.depths[d] || c !== p.depths[d]) {
                bad.push({ d, stored: p.depths[d], ffish: counts[d], chessvar: c });
            }
        }
        leaves += counts[maxD];
        if (!bad.length) {
            passed++;
            continue;
        }
        failed++;
        for (const b of bad) {
            console.log(
                `FAIL  line ${p.line}  D${b.d}  stored ${b.stored}  ffish ${b.ffish}  chessvar ${b.chessvar}  ${p.fen}`
            );
        }
        const first = bad.find((b) => b.ffish !== b.chessvar);
        if (first && first.chessvar !== undefined) {
            console.log(`  localised by divide (depth ${first.d}):`);
            for (const l of localise(ff, bin, variant, p.fen, first.d)) console.log(l);
        }
    }
    const secs = (Date.now() - t0) / 1000;
    console.log(
        `${path.basename(file)}: ${positions.length} positions, ${leaves} leaves at the deepest depths, ` +
            `ffish and chessvar in ${secs.toFixed(1)} s`
    );
    console.log(`ffish ${variant}: ${passed} passed, ${failed} failed`);
    return failed ? 1 : 0;
}

// Command line entry point (see the header).
async function main(argv) {
    const [cmd, variant, ...rest] = argv;
    if (cmd === 'check' && rest.length === 2) return check(variant, rest[0], rest[1]);
    if (cmd === 'perft' && rest.length === 2) {
        const ff = await loadFfish();
        const counts = ffishPerft(ff, variant, rest[0], Number(rest[1]));
        counts.slice(1).forEach((n, i) => console.log(`depth ${i + 1}: ${n}`));
        return 0;
    }
    if (cmd === 'perftree' && (rest.length === 2 || rest.length === 3)) {
        const ff = await loadFfish();
        const played = (rest[2] || '').split(/\s+/).filter((x) => x);
        let total = 0;
        for (const [mv, n] of ffishDivide(ff, variant, rest[1], Number(rest[0]), played)) {
            console.log(`${mv} ${n}`);
            total += n;
        }
        console.log(`\n${total}`);
        return 0;
    }
    if (cmd === 'divide' && (rest.length === 2 || rest.length === 3)) {
        const ff = await loadFfish();
        const depth = Number(rest[1]);
        if (rest.length === 3) {
            const lines = localise(ff, rest[2], variant, rest[0], depth);
            lines.forEach((l) => console.log(l));
            return 0;
        }
        let total = 0;
        for (const [mv, n] of ffishDivide(ff, variant, rest[0], depth)) {
            console.log(`${mv}: ${n}`);
            total += n;
        }
        console.log(`total: ${total}`);
        return 0;
    }
    console.error(
        'usage: ffish_perft.js check VARIANT FILE.epd CHESSVAR | perft VARIANT FEN DEPTH | ' +
            'divide VARIANT FEN DEPTH [CHESSVAR] | perftree VARIANT DEPTH FEN [MOVES]'
    );
    return 2;
}

module.exports = { loadFfish, toFfish, fromFfish, superchessPool, perftAll, ffishPerft, newBoard, readEpd };

if (require.main === module) {
    main(process.argv.slice(2)).then(
        (code) => process.exit(code),
        (e) => {
            console.error(`ffish_perft: ${e.message}`);
            process.exit(2);
        }
    );
}
