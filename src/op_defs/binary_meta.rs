//! The [`BinaryOp`] enum and its metadata (names, dtype rule, saves), expanded from the
//! declarations in [`super::binary`].

/// How a binary op's result dtype follows from its operands' (after promotion to their
/// common dtype).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryDType {
    /// The common dtype.
    Promote,
    /// The common dtype; two bool operands are an error (`bool - bool` is ambiguous).
    PromoteNotBool,
    /// The common dtype; two bool operands compute in int64 (`True // True == 1`).
    PromoteBoolToInt,
    /// A floating dtype: integers and bools compute in the default float dtype.
    Float,
    /// Always bool (comparisons and logical ops); computed in the common dtype.
    Bool,
    /// The common dtype, which must be an integer or bool (bitwise ops).
    IntOrBool,
}

/// When a binary op's backward keeps one of `a`, `b`, `out`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaveWhen {
    /// Never (the formulas do not read it; takes no slot).
    Never,
    /// Whenever a gradient is recorded.
    Always,
    /// Only when the left operand's gradient is needed.
    IfLhs,
    /// Only when the right operand's gradient is needed.
    IfRhs,
}

impl SaveWhen {
    /// Whether to keep the tensor, given which operand gradients are needed.
    pub fn wanted(self, need_lhs: bool, need_rhs: bool) -> bool {
        match self {
            SaveWhen::Never => false,
            SaveWhen::Always => true,
            SaveWhen::IfLhs => need_lhs,
            SaveWhen::IfRhs => need_rhs,
        }
    }
}

/// A Rust method name as Python sees it (`r#mod` is `mod`).
pub const fn py_name(name: &'static str) -> &'static str {
    match name.as_bytes() {
        [b'r', b'#', rest @ ..] => match std::str::from_utf8(rest) {
            Ok(s) => s,
            Err(_) => name,
        },
        _ => name,
    }
}

/// `true` when given tokens, `false` when given none (an optional table column).
macro_rules! present {
    () => {
        false
    };
    ($($t:tt)+) => {
        true
    };
}
#[allow(unused_imports)] // used by the expansion below
use present;

macro_rules! declare_binary_ops {
    ($($v:ident {
        methods: [$($m:ident),+], dunders: [$($dunder:ident),*], kwargs: [$($kw:ident),*],
        extra: [$($ex:ident)?],
        doc: $doc:literal,
        dtype: $dtype:ident,
        float: [$($float:expr)?], int: [$($int:expr)?],
        complex: [$($cplx:expr)?], boolean: [$($b:expr)?],
        saves: [$sa:ident, $sb:ident, $so:ident],
        grad: [$($lhs:expr, $rhs:expr)?],
        number_lhs: [$([$na:ident, $nb:ident, $no:ident], $nf:expr)?], node: $node:literal,
    })*) => {
        /// A binary elementwise operation (declared in [`binary`](super::binary)).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum BinaryOp {
            $(
                #[doc = $doc]
                $v,
            )*
        }

        impl BinaryOp {
            /// Every binary op, in declaration order.
            pub const ALL: &'static [BinaryOp] = &[$(BinaryOp::$v),*];

            /// User-facing op name (its first method name, Paddle's spelling).
            pub fn name(self) -> &'static str {
                match self {
                    $(BinaryOp::$v => py_name(first_method!($($m),+)),)*
                }
            }

            /// All `Tensor` method names (also module functions) of the op, as Python
            /// spells them.
            pub fn method_names(self) -> &'static [&'static str] {
                match self {
                    $(BinaryOp::$v => {
                        const NAMES: &[&str] = &[$(py_name(stringify!($m))),+];
                        NAMES
                    })*
                }
            }

            /// The Python operator and its reflected form (`["__add__", "__radd__"]`), or
            /// none.
            pub fn dunder_names(self) -> &'static [&'static str] {
                match self {
                    $(BinaryOp::$v => &[$(stringify!($dunder)),*],)*
                }
            }

            /// Keyword names the methods also accept for the second operand.
            pub fn operand_keywords(self) -> &'static [&'static str] {
                match self {
                    $(BinaryOp::$v => &[$(stringify!($kw)),*],)*
                }
            }

            /// The one more torch keyword the methods take (`alpha`, `rounding_mode`), if
            /// any.
            pub fn extra_keyword(self) -> Option<&'static str> {
                match self {
                    $(BinaryOp::$v => None$(.or(Some(stringify!($ex))))?,)*
                }
            }

            /// The one-line description shown by `help()` and the stubs.
            pub fn doc(self) -> &'static str {
                match self {
                    $(BinaryOp::$v => $doc,)*
                }
            }

            /// How the result dtype follows from the operands' dtypes.
            pub fn dtype_rule(self) -> BinaryDType {
                match self {
                    $(BinaryOp::$v => BinaryDType::$dtype,)*
                }
            }

            /// True when the result is bool (comparisons and logical ops).
            pub fn returns_bool(self) -> bool {
                self.dtype_rule() == BinaryDType::Bool
            }

            /// Whether the op has a kernel for complex operands.
            pub fn supports_complex(self) -> bool {
                match self {
                    $(BinaryOp::$v => present!($($cplx)?),)*
                }
            }

            /// Whether a gradient flows back through the op (integer-valued and bool
            /// results have none).
            pub fn has_gradient(self) -> bool {
                match self {
                    $(BinaryOp::$v => present!($($lhs)?),)*
                }
            }

            /// When the backward keeps `[a, b, out]`.
            pub fn saves(self) -> [SaveWhen; 3] {
                match self {
                    $(BinaryOp::$v => [SaveWhen::$sa, SaveWhen::$sb, SaveWhen::$so],)*
                }
            }

            /// What the cheaper formula for a Python number on the left keeps, if the op
            /// declares one.
            pub fn number_lhs_saves(self) -> Option<[SaveWhen; 3]> {
                match self {
                    $($(BinaryOp::$v => Some([SaveWhen::$na, SaveWhen::$nb, SaveWhen::$no]),)?)*
                    _ => None,
                }
            }

            /// The backward node's name.
            pub fn node_name(self) -> &'static str {
                match self {
                    $(BinaryOp::$v => $node,)*
                }
            }

            /// The op with method name `name` (any of its aliases).
            pub fn from_name(name: &str) -> Option<BinaryOp> {
                BinaryOp::ALL
                    .iter()
                    .copied()
                    .find(|op| op.method_names().contains(&name))
            }
        }
    };
}

/// The first of a list of identifiers, as a string.
macro_rules! first_method {
    ($first:ident $(, $rest:ident)*) => {
        stringify!($first)
    };
}
#[allow(unused_imports)] // used by the expansion below
use first_method;

super::binary::for_each_binary_op!(declare_binary_ops);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for &op in BinaryOp::ALL {
            for &name in op.method_names() {
                assert!(seen.insert(name), "{name} declared twice");
                assert_eq!(BinaryOp::from_name(name), Some(op));
            }
            assert_eq!(op.method_names()[0], op.name());
        }
        assert_eq!(BinaryOp::from_name("mod"), Some(BinaryOp::Rem));
    }

    #[test]
    fn bool_results_have_no_gradient_and_save_nothing() {
        for &op in BinaryOp::ALL {
            if op.returns_bool() || !op.has_gradient() {
                assert!(!op.has_gradient(), "{}", op.name());
                assert_eq!(op.saves(), [SaveWhen::Never; 3], "{}", op.name());
                assert_eq!(op.number_lhs_saves(), None, "{}", op.name());
            }
        }
    }

    #[test]
    fn dunders_come_in_pairs() {
        for &op in BinaryOp::ALL {
            let d = op.dunder_names();
            assert!(d.is_empty() || d.len() == 2, "{}", op.name());
            if let [fwd, refl] = d {
                assert_eq!(format!("__r{}", &fwd[2..]), *refl);
            }
        }
    }
}
