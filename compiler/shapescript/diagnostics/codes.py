"""The registry of every diagnostic code: severity, area and title.

A code is never reused. Its letter gives the severity and its first two digits the area.
"""

from __future__ import annotations

from shapescript.diagnostics.diagnostic import Severity
from shapescript.records import record

AREAS: dict[str, str] = {
    "01": "lexing and layout",
    "02": "parsing",
    "03": "names and declarations",
    "04": "shapes",
    "05": "value domains and dtypes",
    "06": "math in comments",
    "07": "notebooks",
    "08": "control flow and host scalars",
    "09": "models",
    "10": "devices",
    "11": "mut and gradients",
    "12": "modes and random operations",
    "13": "data records and datasets",
    "14": "logs and sinks",
    "15": "optimizers, gradient transforms and schedules",
    "16": "checkpoints",
    "17": "export",
    "18": "several devices",
    "19": "Python calls and options on several devices",
    "20": "fixed shapes and padding",
    "22": "grouped sizes and shape aliases",
    "23": "modules, overloaded functions and generic functions",
    "24": "iterator chains: what they iterate and their independence",
    "25": "the Python modules generated beside .ss files",
    "29": "installed packages",
    "31": "recording steps as CUDA graphs",
    "32": "iterator chains: their syntax and stages",
    "33": "exporting models for Hugging Face and serving engines",
}


@record(frozen=True)
class CodeInfo:
    """What the registry knows of one code."""

    code: str
    title: str

    @property
    def severity(self) -> Severity:
        return Severity.from_code(self.code)

    @property
    def area(self) -> str:
        return self.code[1:3]

    @property
    def area_name(self) -> str:
        return AREAS[self.area]


_TITLES: dict[str, str] = {
    "E0101": "Unexpected character",
    "E0102": "Unterminated string",
    "E0103": "Tab used for indentation",
    "E0104": "Indentation doesn't match an enclosing block",
    "E0105": "Unmatched closing bracket",
    "E0106": "Unclosed bracket",
    "E0107": "File is not UTF-8",
    "E0201": "Expected a different token",
    "W0201": "Doc comment not attached to a declaration",
    "E0202": "Unexpected indentation",
    "E0203": "Pattern outside a pattern operation",
    "E0204": "Invalid pipe stage",
    "E0205": "Misused _",
    "E0206": "Chained comparison",
    "E0207": "Expected a declaration",
    "E0208": "Integer too large",
    "E0209": "Nested too deeply",
    "E0301": "Unknown name",
    "E0302": "Name defined twice",
    "E0303": "Name used as the wrong kind of thing",
    "E0304": "Dim defined in terms of itself",
    "E0305": "Dim isn't a positive whole number",
    "E0306": "Invalid function signature",
    "E0307": "Missing return",
    "E0308": "Invalid extern fn",
    "E0401": "Sizes don't match",
    "E0402": "Size isn't divisible",
    "E0403": "Wrong number of axes",
    "E0404": "Axes can't be lined up by name",
    "E0405": "Tensor has no such axis",
    "E0406": "Wrong arguments",
    "E0407": "Pattern doesn't fit the operation",
    "E0408": "Axes in a different order",
    "E0409": "Size can't be inferred",
    "E0410": "as that can never succeed",
    "E0411": "Wrong number of results",
    "E0412": "Value isn't a tensor",
    "E0413": "Python value with an unknown shape",
    "E0414": "Size too large",
    "E0415": "More elements than the axis has",
    "E0501": "Value isn't in the expected domain",
    "W0501": "Value can be exactly where a function is undefined",
    "E0502": "Wrong dtype",
    "E0503": "Invalid domain",
    "E0504": "to conversion that doesn't exist",
    "E0505": "Arithmetic on a mask",
    "E0506": "Function applied outside its domain",
    "E0507": "Indices for an axis of a different size",
    "H0601": "LaTeX outside the supported subset",
    "H0602": "Malformed math in a comment",
    "E0701": "Something from a notebook cell that has to run again",
    "E0801": "Value assigned in a loop or if changes its type",
    "E0802": "if on something other than a bool",
    "E0803": "Range whose ends aren't ints",
    "E0804": "for over something that can't be looped over",
    "E0805": "Tensor where an int, float or bool is expected",
    "E0901": "Model has no such field",
    "E0902": "Invalid model field",
    "E0903": "Invalid field initializer",
    "E0904": "Value isn't the expected model",
    "E1001": "Invalid devices declaration",
    "E1002": "Unknown devices option",
    "E1003": "Devices declared more than once",
    "E1004": "devices after other declarations",
    "E1005": "Standalone build without devices",
    "E1006": "--devices disagrees with the file's devices",
    "E1101": "mut where it isn't allowed",
    "W1101": "Param that a differentiated function never reads",
    "E1102": "Change to something not passed as mut",
    "E1103": "Argument for a mut parameter without mut",
    "E1104": "New value for a mut parameter",
    "E1105": "Function that can't be differentiated",
    "E1106": "Gradient of something that isn't a []",
    "E1107": "Gradient of a function that doesn't read the model",
    "E1108": "Operation that gradients don't have",
    "E1201": "Call without its Mode",
    "E1202": "Value isn't a Mode",
    "E1301": "Data record has no such field",
    "E1302": "Invalid data field",
    "E1303": "Value isn't the expected data",
    "E1304": "Invalid dataset stage",
    "E1401": "Logs record has no such metric",
    "E1402": "Invalid logs metric",
    "E1403": "Value isn't the expected logs record",
    "E1404": "Value isn't a LogSink",
    "E1501": "Optimizer that isn't given a model",
    "E1502": "Optimizer state or gradient of another model",
    "E1503": "Value isn't the expected optimizer state",
    "E1504": "Learning rate that isn't a number or a Schedule",
    "E1505": "update or a gradient transform given the wrong kind of value",
    "E1601": "Value that save can't write to a checkpoint",
    "E1602": "load given something that isn't a type it can read",
    "E1603": "Checkpoint path that isn't a string",
    "E1701": "Python in an exported function",
    "E1702": "extern fn outside torch, called by an exported function",
    "E1703": "as on a Python value in an exported function",
    "E1704": "Value or operation with no torch-only lowering in an exported function",
    "E1705": "Parameter of an export fn that isn't a tensor with a shape",
    "E1706": "return inside an if on a tensor in an exported function",
    "E1801": "Operation across the batch axis with no lowering for several devices",
    "E1802": "Batch axis that can't stay split across the devices",
    "E1803": "Device work in a function that runs in the controller",
    "E1804": "Whole value passed where a function takes a split one",
    "E1805": "Standalone build for several devices",
    "E1901": "Python call given data split across the devices",
    "E1902": "Split axis whose size the devices don't divide",
    "E1903": "devices option given twice",
    "E1904": "split of something other than a dim",
    "H2001": "The last batch isn't padded",
    "E2201": "Shape alias defined in terms of itself",
    "H2201": "16 gh, two axes, where 16gh was probably meant",
    "E2202": "Shape alias where its axes can't be spliced",
    "E2203": "Grouped size like 16gh outside an axis",
    "E2301": "No .ss file for an import",
    "E2302": "Files that import each other",
    "E2303": "An imported file has errors",
    "E2304": "A name an imported file doesn't declare",
    "E2305": "Standalone build of a file with imports",
    "E2306": "An import or generic function where it can't be used",
    "E2307": "Functions of the same name for the same model",
    "E2308": "No function of that name for the argument's model",
    "E2309": "Misused type variable",
    "E2310": "Arguments disagree about a type variable",
    "E2311": "A generic function needs a function the model doesn't have",
    "E2312": "A generic function doesn't check with these types",
    "E2313": "Generic functions call each other too deeply",
    "E2401": "Iteration over something that isn't an axis or a tensor",
    "H2401": "Sequential loop whose iterations are independent",
    "E2402": "Iterator stage that reads the result it builds",
    "E2403": "Iterator stage whose function does more than compute a value",
    "E2404": "Iterator stage that uses values split across devices",
    "W2501": "Hand-written Python module beside a .ss file",
    "E2901": "Package built by a newer compiler",
    "H3101": "Step that can't be recorded as a CUDA graph",
    "E3201": "List comprehension",
    "E3202": "Lambda outside map or filter",
    "E3203": "Range outside an iterator chain or for loop",
    "E3205": "Pairs that aren't taken apart",
    "E3206": "Function that doesn't take each part of a pair",
    "E3301": "Forward function with the wrong parameters for a serving export",
    "E3302": "Forward function that doesn't end with the output projection",
    "E3303": "Token embedding used in a way a serving export can't map",
    "E3304": "Operation across the sequence that isn't causal attention",
    "E3305": "Attention a serving export can't map",
    "E3306": "Hugging Face export of a function without a model first",
    "E3307": "GGUF export of a forward function without positions",
}

CODES: dict[str, CodeInfo] = {code: CodeInfo(code, title) for code, title in _TITLES.items()}

#: Codes whose help names a concrete edit: the checker attaches that edit to the diagnostic
#: as a fix (`Diagnostic.fixes`), and editors offer it as a quick fix.
FIXABLE: frozenset[str] = frozenset(
    {
        "E0103",
        "E0204",
        "E0301",
        "E0303",
        "E0306",
        "E0501",
        "E0502",
        "E0901",
        "E0903",
        "E1001",
        "E1101",
        "E1103",
        "E1301",
        "E1401",
        "E2203",
        "E3201",
        "H0601",
        "H2201",
        "H2401",
        "W0501",
    }
)


def lookup(code: str) -> CodeInfo | None:
    """The registry entry of a code, or None when the code is unknown."""
    return CODES.get(code.strip().upper())
