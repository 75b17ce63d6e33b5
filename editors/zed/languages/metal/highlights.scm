; Highlighting for the Metal Shading Language, written against tree-sitter-cpp's nodes.
;
; When several patterns capture the same node, Zed uses the one that comes last in this
; file. The file therefore goes from general to specific, and the Metal-specific rules
; come at the end. The C++ grammar does not know Metal's address spaces and stage
; qualifiers: `device float *p` reads to it as a type named `device` followed by stray
; words, so the Metal rules match names by their text wherever they land (type names,
; plain identifiers, the contents of error nodes).

; Names ---------------------------------------------------------------------------------

(identifier) @variable

(field_identifier) @property

(statement_identifier) @label

(namespace_identifier) @namespace

(using_declaration
  "namespace"
  (identifier) @namespace)

(type_identifier) @type

(primitive_type) @type.builtin

(sized_type_specifier) @type.builtin

(auto) @type.builtin

(this) @variable.special

; Names in upper case are taken to be constants (macros, mostly).
((identifier) @constant
  (#match? @constant "^_*[A-Z][A-Z0-9_]*$"))

(enumerator
  name: (identifier) @constant)

(preproc_def
  name: (identifier) @constant)

; Functions ---------------------------------------------------------------------------

(function_declarator
  declarator: (identifier) @function)

(function_declarator
  declarator: (field_identifier) @function)

(function_declarator
  declarator: (qualified_identifier
    name: (identifier) @function))

(call_expression
  function: (identifier) @function)

(call_expression
  function: (qualified_identifier
    name: (identifier) @function))

(call_expression
  function: (field_expression
    field: (field_identifier) @function))

(template_function
  name: (identifier) @function)

(template_method
  name: (field_identifier) @function)

(destructor_name
  (identifier) @function)

(operator_name) @function

(preproc_function_def
  name: (identifier) @function)

; Keywords ----------------------------------------------------------------------------

[
  "break"
  "case"
  "catch"
  "class"
  "co_await"
  "co_return"
  "co_yield"
  "concept"
  "continue"
  "decltype"
  "default"
  "delete"
  "do"
  "else"
  "enum"
  "explicit"
  "for"
  "friend"
  "goto"
  "if"
  "namespace"
  "new"
  "noexcept"
  "operator"
  "requires"
  "return"
  "sizeof"
  "static_assert"
  "struct"
  "switch"
  "template"
  "throw"
  "try"
  "typedef"
  "typename"
  "union"
  "using"
  "while"
  (access_specifier)
  (storage_class_specifier)
  (type_qualifier)
  (virtual_specifier)
] @keyword

; Literals and comments ---------------------------------------------------------------

(number_literal) @number

; `1.0h` (a half) reads as a user-defined literal; its suffix is part of the number.
(user_defined_literal
  (literal_suffix) @number)

[
  (true)
  (false)
] @boolean

(null) @constant.builtin

[
  (string_literal)
  (raw_string_literal)
  (char_literal)
] @string

(system_lib_string) @string.special

(escape_sequence) @string.escape

(comment) @comment

((comment) @comment.doc
  (#match? @comment.doc "^(///|/\\*\\*)"))

; Operators and punctuation -----------------------------------------------------------

[
  "="
  "+="
  "-="
  "*="
  "/="
  "%="
  "&="
  "|="
  "^="
  "<<="
  ">>="
  "+"
  "-"
  "*"
  "/"
  "%"
  "++"
  "--"
  "=="
  "!="
  "<"
  ">"
  "<="
  ">="
  "<=>"
  "&&"
  "||"
  "!"
  "&"
  "|"
  "^"
  "~"
  "<<"
  ">>"
  "?"
  "->"
  ".*"
  "->*"
] @operator

[
  "("
  ")"
  "["
  "]"
  "{"
  "}"
] @punctuation.bracket

(template_argument_list
  [
    "<"
    ">"
  ] @punctuation.bracket)

(template_parameter_list
  [
    "<"
    ">"
  ] @punctuation.bracket)

[
  ";"
  ","
  "."
  ":"
  "::"
] @punctuation.delimiter

; Preprocessor ------------------------------------------------------------------------

[
  "#include"
  "#define"
  "#if"
  "#ifdef"
  "#ifndef"
  "#elif"
  "#elifdef"
  "#elifndef"
  "#else"
  "#endif"
  "defined"
  (preproc_directive)
] @preproc

; Metal -------------------------------------------------------------------------------

; An address space or a stage qualifier in front of a type throws the C++ grammar off,
; and the real type and name come out in odd places. These patterns put them right;
; the rules further down then colour the library's own type names. (An error node can
; only be asked for as optional: a required one is refused as impossible in that place.)

; A parameter `device T *name` reads as `T::*name` with the `::` missing: `T` comes out
; as a namespace and `name` as a type.
((parameter_declaration
  type: (type_identifier) @_space
  declarator: (qualified_identifier
    scope: (namespace_identifier) @type
    name: (pointer_type_declarator
      declarator: [
        (type_identifier) @variable
        (attributed_declarator
          (type_identifier) @variable)
      ])))
  (#any-of? @_space "device" "constant" "thread" "threadgroup" "threadgroup_imageblock" "ray_data" "object_data"))

; In `constant T &name` and `constant T name = ...` the type lands in an error node.
((parameter_declaration
  type: (type_identifier) @_space
  (ERROR
    (identifier) @type)?)
  (#any-of? @_space "device" "constant" "thread" "threadgroup" "threadgroup_imageblock" "ray_data" "object_data"))

((declaration
  type: (type_identifier) @_space
  (ERROR
    (identifier) @type)?)
  (#any-of? @_space "device" "constant" "thread" "threadgroup" "threadgroup_imageblock" "ray_data" "object_data"))

; `thread T &name = ...` declares `T` as the variable and leaves the rest as an
; expression.
((declaration
  type: (type_identifier) @_space
  declarator: (identifier) @type)
  (#any-of? @_space "device" "constant" "thread" "threadgroup" "threadgroup_imageblock" "ray_data" "object_data"))

; The return type after a stage qualifier: an error node (`fragment half4 f()`), or the
; scope of the function's name (`vertex VertexOut f()` reads as `VertexOut::f`).
((function_definition
  type: (type_identifier) @_stage
  (ERROR
    (identifier) @type)?)
  (#any-of? @_stage "kernel" "vertex" "fragment"))

((function_definition
  type: (type_identifier) @_stage
  declarator: (function_declarator
    declarator: (qualified_identifier
      scope: (namespace_identifier) @type)))
  (#any-of? @_stage "kernel" "vertex" "fragment"))

; Scalar types, also where the parser saw a plain name or a namespace (`constant float k`,
; `kernel void`, `device float *p`).
([
  (type_identifier)
  (identifier)
  (namespace_identifier)
] @type.builtin
  (#any-of? @type.builtin
    "bool" "char" "uchar" "short" "ushort" "int" "uint" "long" "ulong" "half" "bfloat" "float"
    "size_t" "ptrdiff_t" "void"))

; Vectors (`float4`, `packed_half3`) and matrices (`half3x3`).
([
  (type_identifier)
  (identifier)
  (namespace_identifier)
] @type.builtin
  (#match? @type.builtin "^(packed_)?(bool|char|uchar|short|ushort|int|uint|long|ulong|half|bfloat|float)[234]$"))

([
  (type_identifier)
  (identifier)
  (namespace_identifier)
] @type.builtin
  (#match? @type.builtin "^(half|bfloat|float)[234]x[234]$"))

; Textures, atomics and SIMD-group matrices.
([
  (type_identifier)
  (identifier)
  (namespace_identifier)
] @type.builtin
  (#match? @type.builtin
    "^(texture(1d|1d_array|2d|2d_array|2d_ms|2d_ms_array|3d|cube|cube_array|_buffer)|depth(2d|2d_array|2d_ms|2d_ms_array|cube|cube_array)|atomic_(bool|int|uint|ulong|float)|simdgroup_(half|bfloat|float)8x8)$"))

; Library types with common-word names count only in a type's position.
((type_identifier) @type.builtin
  (#any-of? @type.builtin
    "sampler" "atomic" "array" "array_ref" "vec" "packed_vec" "matrix" "imageblock" "uniform"
    "acceleration_structure" "primitive_acceleration_structure" "instance_acceleration_structure"
    "intersection_function_table" "visible_function_table" "intersector" "intersection_result"
    "ray" "mesh" "mesh_grid_properties" "patch_control_point"))

; Constants of the library's scoped options: `access::read`, `filter::linear`,
; `mem_flags::mem_threadgroup`.
((qualified_identifier
  scope: (namespace_identifier) @_scope
  name: [
    (identifier)
    (type_identifier)
  ] @constant.builtin)
  (#any-of? @_scope
    "access" "address" "s_address" "t_address" "r_address" "coord" "filter" "mag_filter" "min_filter"
    "mip_filter" "compare_func" "border_color" "mem_flags"))

; Address spaces.
([
  (type_identifier)
  (identifier)
] @keyword
  (#any-of? @keyword
    "device" "constant" "thread" "threadgroup" "threadgroup_imageblock" "ray_data" "object_data"))

; Stage qualifiers: the parser takes `kernel` in `kernel void f()` for the return type.
((type_identifier) @keyword
  (#any-of? @keyword "kernel" "vertex" "fragment"))

; Attributes: everything between `[[` and `]]`, such as `[[buffer(0)]]`,
; `[[thread_position_in_grid]]` or `[[kernel]]`. Last, so that `[[sampler(0)]]` or
; `[[texture(1)]]` read as attributes, not as types.
(attribute
  prefix: (identifier) @attribute)

(attribute
  name: (identifier) @attribute)

(attribute_declaration
  [
    "[["
    "]]"
  ] @punctuation.bracket)
