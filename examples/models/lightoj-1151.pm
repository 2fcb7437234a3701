// LightOJ 1151 (Snakes and Ladders), the first case of the problem's sample, as a PRISM dtmc: cells
// 1..100, start 1, a fair six-sided die, a throw that would pass 100 wasted (the token stays), and
// the sample's 14 snakes and ladders. The judge's answer, `kolmo judge lightoj-1151` on the sample:
// Case 1: 31.5488080634.
//
//   kolmo check examples/models/lightoj-1151.pm --prop 'R=? [F pos=100]'

dtmc

// Where the token ends after landing on cell x (the case's snakes and ladders).
formula l1 = pos+1;
formula to1 = l1=4 ? 42 : (l1=9 ? 30 : (l1=14 ? 77 : (l1=16 ? 8 : (l1=32 ? 12 : (l1=37 ? 58 : (l1=47 ? 26 : (l1=48 ? 73 : (l1=62 ? 19 : (l1=70 ? 89 : (l1=71 ? 67 : (l1=80 ? 98 : (l1=87 ? 24 : (l1=96 ? 76 : l1)))))))))))));
formula l2 = pos+2;
formula to2 = l2=4 ? 42 : (l2=9 ? 30 : (l2=14 ? 77 : (l2=16 ? 8 : (l2=32 ? 12 : (l2=37 ? 58 : (l2=47 ? 26 : (l2=48 ? 73 : (l2=62 ? 19 : (l2=70 ? 89 : (l2=71 ? 67 : (l2=80 ? 98 : (l2=87 ? 24 : (l2=96 ? 76 : l2)))))))))))));
formula l3 = pos+3;
formula to3 = l3=4 ? 42 : (l3=9 ? 30 : (l3=14 ? 77 : (l3=16 ? 8 : (l3=32 ? 12 : (l3=37 ? 58 : (l3=47 ? 26 : (l3=48 ? 73 : (l3=62 ? 19 : (l3=70 ? 89 : (l3=71 ? 67 : (l3=80 ? 98 : (l3=87 ? 24 : (l3=96 ? 76 : l3)))))))))))));
formula l4 = pos+4;
formula to4 = l4=4 ? 42 : (l4=9 ? 30 : (l4=14 ? 77 : (l4=16 ? 8 : (l4=32 ? 12 : (l4=37 ? 58 : (l4=47 ? 26 : (l4=48 ? 73 : (l4=62 ? 19 : (l4=70 ? 89 : (l4=71 ? 67 : (l4=80 ? 98 : (l4=87 ? 24 : (l4=96 ? 76 : l4)))))))))))));
formula l5 = pos+5;
formula to5 = l5=4 ? 42 : (l5=9 ? 30 : (l5=14 ? 77 : (l5=16 ? 8 : (l5=32 ? 12 : (l5=37 ? 58 : (l5=47 ? 26 : (l5=48 ? 73 : (l5=62 ? 19 : (l5=70 ? 89 : (l5=71 ? 67 : (l5=80 ? 98 : (l5=87 ? 24 : (l5=96 ? 76 : l5)))))))))))));
formula l6 = pos+6;
formula to6 = l6=4 ? 42 : (l6=9 ? 30 : (l6=14 ? 77 : (l6=16 ? 8 : (l6=32 ? 12 : (l6=37 ? 58 : (l6=47 ? 26 : (l6=48 ? 73 : (l6=62 ? 19 : (l6=70 ? 89 : (l6=71 ? 67 : (l6=80 ? 98 : (l6=87 ? 24 : (l6=96 ? 76 : l6)))))))))))));

module board
  pos : [1..100] init 1;
  [throw] pos<100 -> 1/6:(pos'=(l1<=100 ? to1 : pos)) + 1/6:(pos'=(l2<=100 ? to2 : pos)) + 1/6:(pos'=(l3<=100 ? to3 : pos))
                   + 1/6:(pos'=(l4<=100 ? to4 : pos)) + 1/6:(pos'=(l5<=100 ? to5 : pos)) + 1/6:(pos'=(l6<=100 ? to6 : pos));
  [done] pos=100 -> true;
endmodule

// One throw per step before cell 100.
rewards "throws"
  pos<100 : 1;
endrewards
