pragma circom 2.0.0;

// A hash-like chain of ROUNDS rounds, three multiplications each: s ← (s + k + i)³ · (s + i + 1).
// Its witness is full-width field elements (no 0/1 shortcuts in the prover). With ROUNDS = 100
// it has 300 constraints; with the rows snarkjs adds for the public signals (outputs, public
// inputs and the constant one), 303 rows padded to a 512-point domain, so the zero rows of
// the H computation are exercised. Not 600 rows in 1024 because snarkjs's
// `powersoftau prepare phase2` takes minutes at 2^10 on CI's two cores.
template CubeChain(ROUNDS) {
    signal input x;  // private seed
    signal input k;  // public round key
    signal output out;

    signal s[ROUNDS + 1];
    signal square[ROUNDS];
    signal cube[ROUNDS];
    s[0] <== x;
    for (var i = 0; i < ROUNDS; i++) {
        square[i] <== (s[i] + k + i) * (s[i] + k + i);
        cube[i] <== square[i] * (s[i] + k + i);
        s[i + 1] <== cube[i] * (s[i] + i + 1);
    }
    out <== s[ROUNDS];
}

component main {public [k]} = CubeChain(100);
