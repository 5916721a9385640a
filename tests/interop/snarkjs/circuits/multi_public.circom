pragma circom 2.0.0;

// Three public inputs, three outputs and two private inputs, combined so that every public
// signal enters a product: a verifier that mixes up the order of the public signals (outputs
// first, then inputs, as snarkjs's public.json lists them) or drops one rejects the proof.
template MultiPublic() {
    signal input a;  // public
    signal input b;  // public
    signal input c;  // public
    signal input x;  // private
    signal input y;  // private
    signal output sum_of_products;
    signal output cubic;
    signal output mixed;

    signal xy <== x * y;
    signal ax <== a * x;
    sum_of_products <== b * c + xy;
    cubic <== ax * x + c;
    mixed <== (a + y) * (b + 2 * x);
}

component main {public [a, b, c]} = MultiPublic();
