; Selections for Vim mode's text objects (`af`/`if` functions, `ac`/`ic` types, `gc`
; comments).

(function_definition
  body: (compound_statement
    "{"
    (_)* @function.inside
    "}")) @function.around

(lambda_expression
  body: (compound_statement
    "{"
    (_)* @function.inside
    "}")) @function.around

(struct_specifier
  body: (field_declaration_list
    "{"
    (_)* @class.inside
    "}")) @class.around

(class_specifier
  body: (field_declaration_list
    "{"
    (_)* @class.inside
    "}")) @class.around

(union_specifier
  body: (field_declaration_list
    "{"
    (_)* @class.inside
    "}")) @class.around

(enum_specifier
  body: (enumerator_list
    "{"
    (_)* @class.inside
    "}")) @class.around

(comment) @comment.inside

(comment)+ @comment.around
