#include "weft/core/high/high.h"
#include "../low/private.h"
