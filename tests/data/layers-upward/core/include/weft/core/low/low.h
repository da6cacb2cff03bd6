#pragma once
#include "weft/core/high/high.h"  // wrong way: low may not include high
